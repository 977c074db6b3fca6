import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { interpolate } from '../../../src/config/interpolate.js';
import { loadStack } from '../../../src/config/load-stack.js';
import { parseTemplate, writeTemplate } from '../../../src/model/references.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

async function load(text: string) {
  const dir = writeStackFiles({ 'stack.yaml': text });
  return loadStack(join(dir, 'stack.yaml'), { PORT: '8080' });
}
const stack = (blocks: string, top = '') => `version: 1
name: refs${top}
defaults: { project_id: 1, region_id: 76 }
resources:
  edge:
    type: cloud_floating_ip
${blocks}`;
const app = (name: string, extra: string) => `  ${name}:
    type: fastedge_app
    name: ${name.replaceAll('_', '-')}-app
    binary: 7
${extra}`;
const errors = (diagnostics: readonly { severity: string; summary: string; range?: { start: { line: number; column: number } } }[]) =>
  diagnostics.filter((d) => d.severity === 'error').map((d) => [d.summary, d.range?.start.line, d.range?.start.column]);

describe('${TYPE.NAME.FIELD} references, read and validated offline', () => {
  it('reads whole and embedded references next to ${env:NAME} and $${, keeping the template as written', () => {
    expect(interpolate('${cloud_floating_ip.edge.floating_ip_address}', {})).toMatchObject({
      ok: true,
      value: '${cloud_floating_ip.edge.floating_ip_address}',
      template: [{ type: 'cloud_floating_ip', name: 'edge', field: 'floating_ip_address' }],
    });
    const mixed = interpolate('http://${cloud_floating_ip.edge.floating_ip_address}:${env:PORT}/$${x}', { PORT: '8080' });
    expect(mixed).toMatchObject({ ok: true, value: 'http://${cloud_floating_ip.edge.floating_ip_address}:8080/$${x}' });
    const parts = (mixed as { template: Parameters<typeof writeTemplate>[0] }).template;
    expect(parts).toEqual(['http://', { type: 'cloud_floating_ip', name: 'edge', field: 'floating_ip_address' }, ':8080/${x}']);
    expect(parseTemplate(writeTemplate(parts))).toEqual(parts);
    expect(interpolate('$${cloud_floating_ip.edge.id}', {})).toEqual({ ok: true, value: '${cloud_floating_ip.edge.id}', references: [] });
    expect(interpolate('${not a reference}', {})).toEqual({ ok: false, reason: 'malformed', text: '${not a reference}' });
  });

  it('makes each referenced block a dependency, keeps the template in the attributes, and the digest covers it', async () => {
    const text = stack(app('gw', '    env:\n      ORIGIN_IP: ${cloud_floating_ip.edge.floating_ip_address}\n      APP: "id-${fastedge_app.other.id}"\n') + app('other', ''));
    const { stack: loaded, diagnostics } = await load(text);
    expect(errors(diagnostics)).toEqual([]);
    const gw = loaded!.resources.find((b) => b.address === 'fastedge_app.gw')!;
    expect(gw.dependsOn).toEqual(['cloud_floating_ip.edge', 'fastedge_app.other']);
    expect(gw.attributes).toMatchObject({ env: { ORIGIN_IP: '${cloud_floating_ip.edge.floating_ip_address}', APP: 'id-${fastedge_app.other.id}' } });
    expect(gw.references!.map((r) => [r.path, r.template, r.range.start.line])).toEqual([
      [['env', 'ORIGIN_IP'], '${cloud_floating_ip.edge.floating_ip_address}', 12],
      [['env', 'APP'], 'id-${fastedge_app.other.id}', 13],
    ]);
    // A literal string that reads like a reference is not one: the digest tells them apart.
    const literal = await load(text.replace('ORIGIN_IP: ${', () => 'ORIGIN_IP: $${'));
    expect(literal.stack!.resources.find((b) => b.address === 'fastedge_app.gw')!.attributes).toMatchObject({
      env: { ORIGIN_IP: '${cloud_floating_ip.edge.floating_ip_address}' },
    });
    expect(literal.stack!.digest).not.toBe(loaded!.digest);
  });

  it('keeps a whole reference typed: a number into a number field, and into a string field written as text', async () => {
    const { stack: loaded, diagnostics } = await load(stack(app('a', '    status: ${fastedge_app.b.status}\n    env:\n      B: "${fastedge_app.b.id}"\n') + app('b', '')));
    expect(errors(diagnostics)).toEqual([]);
    const refs = loaded!.resources.find((b) => b.address === 'fastedge_app.a')!.references!;
    expect(refs.map((r) => [r.path.join('.'), r.stringify ?? false])).toEqual([
      ['status', false],
      ['env.B', true],
    ]);
  });

  it('refuses, each at its value: unknown address (did you mean), unknown field (did you mean), a check, ensure: absent, type mismatches, the block itself', async () => {
    const text =
      stack(
        app('a', '    env:\n      X: ${cloud_floating_ip.egde.floating_ip_address}\n      Y: ${cloud_floating_ip.edge.floating_ip_adress}\n      Z: ${streaming_ai_tasks.t.id}\n') +
          app('b', '    status: ${cloud_floating_ip.edge.id}\n    comment: ${fastedge_app.gone.name}\n') +
          app('c', '    status: "s-${fastedge_app.a.status}"\n    comment: ${fastedge_app.c.name}\n') +
          '  gone:\n    type: fastedge_app\n    app_id: 9\n    ensure: absent\n',
      ) + 'checks:\n  t:\n    type: streaming_ai_tasks\n    max_count: 0\n';
    expect(errors((await load(text)).diagnostics)).toEqual([
      ['${cloud_floating_ip.egde.floating_ip_address} refers to cloud_floating_ip.egde, which is not in the stack; did you mean "cloud_floating_ip.edge"?', 12, 10],
      ['${cloud_floating_ip.edge.floating_ip_adress}: a cloud_floating_ip has no readable field "floating_ip_adress"; did you mean "floating_ip_address"?', 13, 10],
      ['${streaming_ai_tasks.t.id} refers to a check; a reference reads a resource', 14, 10],
      ['status takes a number, but ${cloud_floating_ip.edge.id} is a string', 19, 13],
      ['${fastedge_app.gone.name} refers to fastedge_app.gone, which has ensure: absent', 20, 14],
      ['status takes a number, but s-${fastedge_app.a.status} is text (a reference inside a string is written as text)', 25, 13],
      ['${fastedge_app.c.name} refers to the block itself', 26, 14],
    ]);
  });

  it('tells a security group rule naming its own group by a reference to write remote_group_id: self, not to write the value out', async () => {
    const text = stack(`  web:
    type: cloud_security_group
    name: web
    rules:
      - { direction: ingress, protocol: tcp, port_range_min: 22, remote_group_id: "\${cloud_security_group.web.id}" }
    description: \${cloud_security_group.web.name}
`);
    const { diagnostics } = await load(text);
    expect(diagnostics.filter((d) => d.severity === 'error').map((d) => [d.summary, d.detail])).toEqual([
      [
        '${cloud_security_group.web.id} refers to the block itself; write remote_group_id: self',
        'A block cannot read its own attributes; remote_group_id: self names it (its id is not known before it exists).',
      ],
      // Elsewhere in the block there is no such word.
      ['${cloud_security_group.web.name} refers to the block itself', 'A block cannot read its own attributes; write the value out.'],
    ]);
  });

  it('takes a reference from a block being deleted to another being deleted: only the order in which they are deleted', async () => {
    const text = stack(
      '  gone:\n    type: fastedge_app\n    app_id: 9\n    ensure: absent\n' +
        '  also_gone:\n    type: fastedge_app\n    app_id: 10\n    comment: ${fastedge_app.gone.name}\n    ensure: absent\n',
    );
    const { stack: loaded, diagnostics } = await load(text);
    expect(errors(diagnostics)).toEqual([]);
    expect(loaded!.resources.find((b) => b.address === 'fastedge_app.also_gone')!.dependsOn).toContain('fastedge_app.gone');
  });

  it('refuses references where they cannot be resolved before planning: identity, natural key, place, defaults, provider, checks, type, depends_on', async () => {
    const text = `version: 1
name: refs
defaults: { project_id: 1, region_id: "\${cloud_floating_ip.a.id}" }
resources:
  a:
    type: cloud_floating_ip
    floating_ip_id: \${cloud_floating_ip.b.id}
  b:
    type: cloud_floating_ip
    project_id: \${fastedge_app.c.id}
    region_id: 76
  c:
    type: fastedge_app
    name: \${cloud_floating_ip.b.id}
  d:
    type: \${cloud_floating_ip.b.id}
  e:
    type: fastedge_app
    app_id: 3
    depends_on:
      - \${cloud_floating_ip.b.id}
checks:
  t:
    type: streaming_ai_tasks
    where:
      task_name: \${cloud_floating_ip.b.id}
    max_count: 0
`;
    const found = errors((await load(text)).diagnostics);
    expect(found).toEqual([
      ['defaults: cannot hold a reference (${cloud_floating_ip.a.id}): it is read before any resource is planned', 3, 39],
      ['floating_ip_id cannot hold a reference (${cloud_floating_ip.b.id}): edgeform reads the cloud_floating_ip by it before anything is applied', 7, 21],
      ['project_id cannot hold a reference (${fastedge_app.c.id}): edgeform reads the cloud_floating_ip by it before anything is applied', 10, 17],
      ['name cannot hold a reference (${cloud_floating_ip.b.id}): edgeform reads the fastedge_app by it before anything is applied', 14, 11],
      ['type cannot use ${env:...} or a reference: the kind of a block must be written out', 16, 11],
      ['depends_on entries must be addresses like cloud_instance.web_vm', 21, 9],
      ['a check cannot use references (${cloud_floating_ip.b.id}): checks are evaluated when planning, before apply makes what they would read', 26, 18],
    ]);
  });

  it('refuses references in what decides the plan, not only what is planned: ensure, the policies, and the files read when the stack is loaded', async () => {
    const text = `version: 1
name: refs
defaults: { project_id: 1, region_id: 76 }
resources:
  a:
    type: cloud_network
    name: net-a
  b:
    type: cloud_network
    name: net-b
    ensure: \${cloud_network.a.name}
    tags_policy: \${cloud_network.a.name}
  c:
    type: cloud_ssh_key
    name: key-c
    public_key_file: \${cloud_network.a.name}
`;
    expect(errors((await load(text)).diagnostics)).toEqual([
      ['ensure cannot hold a reference (${cloud_network.a.name}): it decides what the plan does with the cloud_network, before anything is applied', 11, 13],
      ['tags_policy cannot hold a reference (${cloud_network.a.name}): it decides what the plan does with the cloud_network, before anything is applied', 12, 18],
      ['public_key_file cannot hold a reference (${cloud_network.a.name}): it names a file, which is read when the stack is loaded', 16, 22],
    ]);
  });

  it('says why depends_on and moved_from take no reference: the address is written out, and a reference elsewhere is already a dependency', async () => {
    const text = stack(app('a', '    depends_on: ["${cloud_floating_ip.edge.id}"]\n') + '  moved:\n    type: cloud_floating_ip\n    moved_from: "${fastedge_app.a.name}"\n');
    const details = (await load(text)).diagnostics.filter((d) => d.severity === 'error').map((d) => d.detail);
    expect(details).toEqual([
      'Addresses cannot use ${env:...} or references; the dependency graph must be known before anything runs (a reference elsewhere in the block is already a dependency).',
      'moved_from cannot use ${env:...} or a reference: what a plan re-tags must be written out.',
    ]);
  });

  it('prints a cycle through references as any dependency cycle, at the reference', async () => {
    const text = stack(app('a', '    comment: ${fastedge_app.b.name}\n') + app('b', '    env:\n      A: "${fastedge_app.a.url}"\n'));
    expect(errors((await load(text)).diagnostics)).toEqual([['dependency cycle: fastedge_app.a -> fastedge_app.b -> fastedge_app.a', 11, 14]]);
  });
});
