import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadStack } from '../../../src/config/load-stack.js';
import { NAME_PATTERN } from '../../../src/config/validate-block.js';
import { MAX_BLOCK_NAME, sanitizeBlockName, uniqueBlockNames, writeStack, type DraftBlock } from '../../../src/config/write-stack.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

const FIP = '726ecfcc-7fd0-4e30-a86e-7892524aa483';
const FIP2 = '5f0c3a1e-2b7d-4c9a-8e61-0d2b3c4f5a6b';
const VM = 'a7e7e8d6-0b4c-4c2e-9d1e-2f0f0c7b9a11';

async function load(text: string) {
  const dir = writeStackFiles({ 'stack.yaml': text });
  return loadStack(join(dir, 'stack.yaml'), {});
}

const fip = (id: string, project: number, region: number, tags: Record<string, string>, name = 'ip_203.0.113.10'): DraftBlock => ({
  type: 'cloud_floating_ip',
  name,
  attributes: { project_id: project, region_id: region, floating_ip_id: id, tags },
  comment: `imported from GET /cloud/v1/floatingips/${project}/${region}: id "${id}"`,
});

describe('writeStack', () => {
  it('writes version, defaults for one project and region, and each block with its comment, fields in schema order', () => {
    const text = writeStack({
      blocks: [
        fip(FIP, 1, 76, { env: 'prod' }),
        {
          type: 'cloud_instance',
          name: 'web-1',
          attributes: { flavor_id: 'g2-standard-2-4', instance_id: VM, region_id: 76, project_id: 1 },
          comment: 'imported from GET /cloud/v1/instances/1/76: id "a7e7…", name "web-1"',
        },
        { type: 'fastedge_app', name: 'legacy-app', attributes: { app_id: 1234 }, comment: 'imported from GET /fastedge/v1/apps: id 1234' },
      ],
      header: ['Imported by edgeform import'],
    });
    expect(text).toBe(`# Imported by edgeform import

version: 1
defaults:
  project_id: 1
  region_id: 76
resources:
  # imported from GET /cloud/v1/floatingips/1/76: id "${FIP}"
  ip_203_0_113_10:
    type: cloud_floating_ip
    floating_ip_id: ${FIP}
    tags:
      env: prod

  # imported from GET /cloud/v1/instances/1/76: id "a7e7…", name "web-1"
  web-1:
    type: cloud_instance
    instance_id: ${VM}
    flavor_id: g2-standard-2-4

  # imported from GET /fastedge/v1/apps: id 1234
  legacy-app:
    type: fastedge_app
    app_id: 1234
`);
  });

  it('keeps project_id and region_id in each block when the blocks disagree, and defaults only the one they share', async () => {
    const text = writeStack({ blocks: [fip(FIP, 1, 76, {}), fip(FIP2, 2, 76, {}, 'other')] });
    expect(text).toContain('defaults:\n  region_id: 76\nresources:\n');
    const { stack, diagnostics } = await load(text);
    expect(diagnostics).toEqual([]);
    expect(stack!.resources.map((r) => [(r.attributes as Record<string, unknown>).project_id, (r.attributes as Record<string, unknown>).region_id])).toEqual([
      [1, 76],
      [2, 76],
    ]);
  });

  it('writes provider.base_url only when given, and an empty tags map as {}', () => {
    expect(writeStack({ blocks: [fip(FIP, 1, 76, {})] })).not.toContain('provider');
    const text = writeStack({ blocks: [fip(FIP, 1, 76, {})], baseUrl: 'http://127.0.0.1:8787' });
    expect(text).toContain('provider:\n  base_url: http://127.0.0.1:8787\n');
    expect(text).toContain('    tags: {}\n');
  });

  it('writes an empty stack as resources: {}, which loads (with the warning that it is empty)', async () => {
    const text = writeStack({ blocks: [] });
    expect(text).toBe('version: 1\nresources: {}\n');
    expect((await load(text)).diagnostics.map((d) => [d.severity, d.code])).toEqual([['warning', 'empty-stack']]);
  });

  it('reads back to the same attributes, whatever the tag keys and values hold (quotes, YAML words, controls, bidi, non-ASCII)', async () => {
    const value = fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }).filter((s) => /^\S(.*\S)?$/su.test(s) && !/[\t\n\r]/.test(s));
    // "__proto__" is left out: the stack loader drops such a tag key today (a loader bug, reported; not the writer's).
    const key = fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }).filter((s) => /^[^\s=]+$/u.test(s) && s !== '__proto__');
    await fc.assert(
      fc.asyncProperty(fc.dictionary(key, value, { maxKeys: 4 }), async (tags) => {
        const text = writeStack({ blocks: [fip(FIP, 1, 76, tags)] });
        expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/);
        const { stack, diagnostics } = await load(text);
        expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
        expect((stack!.resources[0]!.attributes as Record<string, unknown>).tags).toEqual(tags);
      }),
      { numRuns: 100 },
    );
  });

  const subtitle = (name: string): DraftBlock => ({
    type: 'streaming_video_subtitle',
    name: 'video_9876_eng',
    attributes: { subtitle_id: 1000, video_id: 9876, language: 'eng', name, vtt: 'WEBVTT\n\n1\n00:00:01.000 --> 00:00:04.000\nWelcome.\n' },
    comment: 'imported from GET /streaming/videos/9876/subtitles: id "1000"',
  });

  it('writes printable text over several lines (WebVTT) as a literal block, line for line', () => {
    expect(writeStack({ blocks: [subtitle('English')] })).toContain('    vtt: |\n      WEBVTT\n\n      1\n      00:00:01.000 --> 00:00:04.000\n      Welcome.\n');
  });

  it('reads back to the same text over several lines, whatever its spaces, blank lines and line ends', async () => {
    const text = fc.string({ unit: fc.constantFrom('a', ' ', '\n', '-', '>', ':', '#', '|', '"', "'", '\t', '\r'), minLength: 1, maxLength: 30 });
    await fc.assert(
      fc.asyncProperty(text, async (name) => {
        const written = writeStack({ blocks: [subtitle(name)] });
        const { stack, diagnostics } = await load(written);
        expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
        expect((stack!.resources[0]!.attributes as Record<string, unknown>).name).toBe(name);
      }),
      { numRuns: 1000, examples: [[' \n'], ['a\n '], ['\n\n'], ['a\n\n\n'], ['  a\nb']] },
    );
  });

  it('escapes control and bidi characters in comments, which stay one line', () => {
    const text = writeStack({ blocks: [{ ...fip(FIP, 1, 76, {}), comment: 'name "a\u202eb\nc\u001b[31m"' }] });
    expect(text).toContain('  # name "a\\u202eb\\nc\\u001b[31m"\n');
  });
});

describe('block names', () => {
  it('makes a live name a valid block name', () => {
    expect(sanitizeBlockName('web-1', 'cloud_instance')).toBe('web-1');
    expect(sanitizeBlockName('ip_203.0.113.10', 'cloud_floating_ip')).toBe('ip_203_0_113_10');
    expect(sanitizeBlockName('My App (prod)', 'fastedge_app')).toBe('My_App_prod');
    expect(sanitizeBlockName('1234', 'fastedge_app')).toBe('fastedge_app_1234');
    expect(sanitizeBlockName('-x', 'fastedge_app')).toBe('fastedge_app_-x');
    expect(sanitizeBlockName('日本', 'streaming_player')).toBe('streaming_player');
    expect(sanitizeBlockName('', 'streaming_player')).toBe('streaming_player');
  });

  it('numbers names already taken, across kinds', () => {
    const blocks = [
      { type: 'cloud_instance', name: 'prod-eu' },
      { type: 'cloud_k8s_cluster', name: 'prod-eu' },
      { type: 'cloud_instance', name: 'prod eu' },
      { type: 'cloud_instance', name: 'prod-eu_2' },
    ] as const;
    expect(uniqueBlockNames(blocks)).toEqual(['prod-eu', 'prod-eu_2', 'prod_eu', 'prod-eu_2_2']);
  });

  it('always gives valid, unique names of at most MAX_BLOCK_NAME characters', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary', maxLength: 80 }), { maxLength: 30 }), (hints) => {
        const names = uniqueBlockNames(hints.map((name) => ({ type: 'fastedge_app' as const, name })));
        for (const name of names) {
          expect(name).toMatch(NAME_PATTERN);
          expect(name.length).toBeLessThanOrEqual(MAX_BLOCK_NAME);
        }
        expect(new Set(names).size).toBe(names.length);
      }),
    );
  });
});
