import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { classifyYaml, discoverStacks } from '../../../src/config/discover-stacks.js';
import { loadStack } from '../../../src/config/load-stack.js';
import { stackFiles, stackPlaces } from '../../../src/config/stack-reads.js';
import { ALL_KINDS, KIND_SERVICE } from '../../../src/kinds/registry.js';
import { writeFleet } from '../../helpers/fleet.js';

describe('discoverStacks: every stack under a root', () => {
  it('finds file stacks and directory stacks, sorted by their place under the root, and skips what is no stack', async () => {
    const root = writeFleet();
    const { stacks, skipped } = await discoverStacks(root);
    expect(stacks).toEqual([
      { path: join(root, 'broken.yaml'), key: 'broken.yaml', kind: 'file' },
      { path: join(root, 'dns/zone.yaml'), key: 'dns/zone.yaml', kind: 'file' },
      { path: join(root, 'media/subtitles.yaml'), key: 'media/subtitles.yaml', kind: 'file' },
      { path: join(root, 'multi'), key: 'multi', kind: 'directory' },
      { path: join(root, 'prod/web.yaml'), key: 'prod/web.yaml', kind: 'file' },
    ]);
    // Hidden folders, node_modules and files that are not YAML are not even looked at; YAML that is no stack is listed as skipped.
    expect(skipped).toEqual([
      { path: join(root, 'compose.yaml'), reason: `its top level has version: "3", not an edgeform stack's version: 1` },
      { path: join(root, 'notes.yml'), reason: 'its top level has no version: 1 (and it is not part of a directory stack)' },
    ]);
  });

  it('keeps the root as given in each path (a relative root stays relative) and names a root that is itself a directory stack "."', async () => {
    const root = writeFleet();
    const { stacks } = await discoverStacks(join(root, 'multi'));
    expect(stacks).toEqual([{ path: join(root, 'multi'), key: '.', kind: 'directory' }]);
    const relative = await discoverStacks(join(root, 'multi', '..', 'dns'));
    expect(relative.stacks.map((s) => s.path)).toEqual([join(root, 'dns/zone.yaml')]);
  });

  it('does not follow a symbolic link to a directory (a loop would never end), but reads a linked stack file', async () => {
    const root = writeFleet();
    symlinkSync(root, join(root, 'prod', 'loop'));
    mkdirSync(join(root, 'linked'));
    symlinkSync(join(root, 'prod', 'web.yaml'), join(root, 'linked', 'web.yaml'));
    const { stacks } = await discoverStacks(root);
    expect(stacks.map((s) => s.key)).toEqual(['broken.yaml', 'dns/zone.yaml', 'linked/web.yaml', 'media/subtitles.yaml', 'multi', 'prod/web.yaml']);
  });

  it('takes a directory of fragments without any version: 1 as a directory stack (it is invalid, and so listed, never dropped)', async () => {
    const root = writeFleet();
    mkdirSync(join(root, 'orphan'));
    writeFileSync(join(root, 'orphan', 'part.yaml'), 'resources:\n  ip: { type: cloud_floating_ip, project_id: 1, region_id: 76 }\n');
    const { stacks } = await discoverStacks(root);
    expect(stacks.find((s) => s.key === 'orphan')).toEqual({ path: join(root, 'orphan'), key: 'orphan', kind: 'directory' });
  });
});

describe('classifyYaml: what a YAML file is, from its top-level keys', () => {
  it('takes version: 1 in any quoting, with a comment after it, as a stack', () => {
    for (const line of ['version: 1', 'version: "1"', "version: '1'", 'version:   1   # v1']) expect(classifyYaml(`${line}\nresources: {}\n`).kind).toBe('stack');
  });

  it('takes another version, or none without stack keys, as something else', () => {
    expect(classifyYaml('version: 2\nresources: {}\n').kind).toBe('other');
    expect(classifyYaml('stages: [plan]\nresources: {}\n').kind).toBe('other');
    expect(classifyYaml('name: x\n').kind).toBe('other');
    // Indented, a key is not at the top level; in a comment it is no key at all.
    expect(classifyYaml('services:\n  version: 1\n').kind).toBe('other');
    expect(classifyYaml('# version: 1\nfoo: bar\n').kind).toBe('other');
  });

  it('takes resources or checks without a version, and only stack keys, as a fragment of a directory stack', () => {
    expect(classifyYaml('# part of a stack\nresources:\n  a: { type: x }\n').kind).toBe('fragment');
    expect(classifyYaml('checks: {}\ndefaults: { project_id: 1 }\n').kind).toBe('fragment');
  });
});

describe('what a stack reads: its places and its files', () => {
  it('reads a block in the service its kind declares (KIND_SERVICE), for every kind, not in a word parsed out of its type', () => {
    expect(Object.keys(KIND_SERVICE).sort()).toEqual(Object.keys(ALL_KINDS).sort());
    // Only the fields stackPlaces reads: a block's type and attributes.
    const block = (type: keyof typeof KIND_SERVICE, attributes: Record<string, unknown>) => ({ type, attributes }) as never;
    expect(
      stackPlaces({ resources: [block('iam_reseller_notification_setting', { reseller_id: 7 }), block('cdn_rule', {})], checks: [block('streaming_ai_tasks', { video_id: 3 })] }),
    ).toEqual([{ service: 'cdn' }, { service: 'iam', reseller_id: 7 }, { service: 'streaming', video_id: 3 }]);
  });

  it('names each place its blocks read (defaults applied) and every file it reads, relative like the stack path', async () => {
    const root = writeFleet();
    const web = (await loadStack(join(root, 'prod/web.yaml'), {})).stack!;
    expect(stackPlaces(web)).toEqual([
      { service: 'cloud', project_id: 1, region_id: 76 },
      { service: 'cloud', project_id: 1 },
    ]);
    expect(stackFiles(web)).toEqual([join(root, 'prod/keys/deploy.pub'), join(root, 'prod/web.yaml')]);

    const media = (await loadStack(join(root, 'media/subtitles.yaml'), {})).stack!;
    expect(stackPlaces(media)).toEqual([{ service: 'streaming', video_id: 9876 }]);
    expect(stackFiles(media)).toEqual([join(root, 'media/fre.vtt'), join(root, 'media/subtitles.yaml')]);

    // The zone's record sets (from its zone file) are read in the zone.
    const dns = (await loadStack(join(root, 'dns/zone.yaml'), {})).stack!;
    expect(stackPlaces(dns)).toEqual([{ service: 'dns', zone: 'example.com' }, { service: 'dns' }]);
    expect(stackFiles(dns)).toEqual([join(root, 'dns/example.com.zone'), join(root, 'dns/zone.yaml')]);

    const multi = (await loadStack(join(root, 'multi'), {})).stack!;
    expect(stackPlaces(multi)).toEqual([{ service: 'cloud', project_id: 2, region_id: 8 }]);
    expect(stackFiles(multi)).toEqual([join(root, 'multi/compute.yaml'), join(root, 'multi/network.yaml')]);
  });

  it('leaves out a coordinate that is a reference to another block (not known offline)', async () => {
    const root = writeFleet({
      'refs.yaml': `version: 1
resources:
  zone: { type: dns_zone, name: example.org }
  www: { type: dns_rrset, zone: "\${dns_zone.zone.name}", name: www.example.org, record_type: A, resource_records: [{ content: [192.0.2.1] }] }
`,
    });
    const stack = (await loadStack(join(root, 'refs.yaml'), {})).stack!;
    // The zone's literal name is written in at load (see references), so the record set is read in that zone.
    expect(stackPlaces(stack)).toEqual([{ service: 'dns', zone: 'example.org' }, { service: 'dns' }]);
  });
});
