import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../../src/config/diagnostics.js';
import { loadStack } from '../../../src/config/load-stack.js';
import { checkReferenceTargets } from '../../../src/config/references.js';
import type { BlockReference } from '../../../src/config/types.js';
import { parseTemplate } from '../../../src/model/references.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

/**
 * The diagnostics a reference ${TYPE.NAME.FIELD} is refused with, whole: code, summary, detail,
 * address and place, so a user (and a tool reading the JSON diagnostics) gets the same answer
 * whichever rule refused it (test/unit/config/references.test.ts has the rules themselves).
 */
async function load(text: string) {
  const dir = writeStackFiles({ 'stack.yaml': text });
  return loadStack(join(dir, 'stack.yaml'), {});
}
const errorsOf = async (text: string) => (await load(text)).diagnostics.filter((d) => d.severity === 'error');
const at = (line: number, column: number) => expect.objectContaining({ filename: expect.stringMatching(/stack\.yaml$/), start: { line, column } });
const head = `version: 1
name: refs
defaults: { project_id: 1, region_id: 76 }
resources:
  edge:
    type: cloud_floating_ip
`;
const app = (name: string, extra = '') => `  ${name}:\n    type: fastedge_app\n    name: ${name}-app\n    binary: 7\n${extra}`;

describe('a refused reference, as a diagnostic', () => {
  it('names a misspelt kind with its did-you-mean and lists the resource types', async () => {
    const [error, ...rest] = await errorsOf(head + app('a', '    comment: ${fastedge_ap.b.name}\n') + app('b'));
    expect(rest).toEqual([]);
    expect(error).toEqual({
      severity: 'error',
      code: 'invalid-reference',
      summary: '${fastedge_ap.b.name}: unknown resource type "fastedge_ap"; did you mean "fastedge_app"?',
      detail: expect.stringMatching(/^A reference is \$\{TYPE\.NAME\.FIELD\}; resource types: (?:[a-z0-9_]+, )+[a-z0-9_]+\.$/),
      address: 'fastedge_app.a',
      range: at(11, 14),
    });
    expect(error!.detail).toContain('cloud_floating_ip, ');
    expect(error!.detail).toContain(', fastedge_app, ');
  });

  it('names a field the kind cannot read, listing those it can', async () => {
    expect(await errorsOf(head + app('a', '    comment: ${cloud_floating_ip.edge.addr}\n'))).toEqual([
      {
        severity: 'error',
        code: 'invalid-reference',
        summary: '${cloud_floating_ip.edge.addr}: a cloud_floating_ip has no readable field "addr"',
        detail: 'A reference to a cloud_floating_ip may read: id, floating_ip_address, status.',
        address: 'fastedge_app.a',
        range: at(11, 14),
      },
    ]);
  });

  it('reports every bad target of one string, and nothing more for it', async () => {
    const errors = await errorsOf(head + app('a', '    comment: "${fastedge_ap.b.name}-${cloud_floating_ip.edge.addr}-${streaming_ai_tasks.t.id}"\n') + app('b'));
    expect(errors.map((d) => d.summary)).toEqual([
      '${fastedge_ap.b.name}: unknown resource type "fastedge_ap"; did you mean "fastedge_app"?',
      '${cloud_floating_ip.edge.addr}: a cloud_floating_ip has no readable field "addr"',
      '${streaming_ai_tasks.t.id} refers to a check; a reference reads a resource',
    ]);
    expect(errors[2]!.detail).toBe('Checks are read-only assertions and have no attributes to read.');
  });

  it('says why a field the read depends on takes no reference, or first what is misspelt in it', async () => {
    const errors = await errorsOf(
      head +
        '  b:\n    type: fastedge_app\n    name: ${cloud_floating_ip.edge.status}\n  c:\n    type: fastedge_app\n    name: ${cloud_floating_ip.edge.stat}\n' +
        '  d:\n    type: fastedge_app\n    name: ${streaming_ai_tasks.t.id}\nchecks:\n  t:\n    type: streaming_ai_tasks\n    max_count: 0\n',
    );
    expect(errors).toEqual([
      {
        severity: 'error',
        code: 'invalid-reference',
        summary: 'name cannot hold a reference (${cloud_floating_ip.edge.status}): edgeform reads the fastedge_app by it before anything is applied',
        detail: 'Write name out; references stand in the other attributes.',
        address: 'fastedge_app.b',
        range: at(9, 11),
      },
      expect.objectContaining({ summary: '${cloud_floating_ip.edge.stat}: a cloud_floating_ip has no readable field "stat"; did you mean "status"?', range: at(12, 11) }),
      expect.objectContaining({ summary: '${streaming_ai_tasks.t.id} refers to a check; a reference reads a resource', range: at(15, 11) }),
    ]);
  });

  it('takes as read before: the natural key beyond the identity, and the place, but not what the kind resolves before reading', async () => {
    const text =
      head +
      app('a') +
      '  n:\n    type: iam_reseller_notification_setting\n    reseller_id: ${fastedge_app.a.id}\n    notification_type: failed_login\n    email: ops@example.com\n' +
      '  v:\n    type: cloud_floating_ip\n    region_id: ${fastedge_app.a.id}\n' +
      '  site:\n    type: cdn_resource\n    cname: cdn.example.com\n    origin: origin.example.com\n' +
      '  r:\n    type: cdn_rule\n    resource_id: ${cdn_resource.site.id}\n    name: images\n    rule: /images/.*\n';
    expect((await errorsOf(text)).map((d) => d.summary)).toEqual([
      'reseller_id cannot hold a reference (${fastedge_app.a.id}): edgeform reads the iam_reseller_notification_setting by it before anything is applied',
      'region_id cannot hold a reference (${fastedge_app.a.id}): edgeform reads the cloud_floating_ip by it before anything is applied',
    ]);
    // A kind without a place has no such field to refuse a reference in: the field is unknown.
    const placeless = await errorsOf(head + app('a') + app('b', '    region_id: ${fastedge_app.a.id}\n'));
    expect(placeless.map((d) => d.summary)).toEqual([expect.not.stringContaining('cannot hold a reference')]);
  });

  it('says why ensure and the policies take no reference', async () => {
    expect(await errorsOf(head + app('a', '    ensure: ${cloud_floating_ip.edge.status}\n'))).toEqual([
      {
        severity: 'error',
        code: 'invalid-reference',
        summary: 'ensure cannot hold a reference (${cloud_floating_ip.edge.status}): it decides what the plan does with the fastedge_app, before anything is applied',
        detail: 'Write ensure out; references stand in the other attributes.',
        address: 'fastedge_app.a',
        range: at(11, 13),
      },
    ]);
  });

  it('tells text with a reference inside from a whole reference of the wrong type', async () => {
    const errors = await errorsOf(head + app('a', '    status: "1${fastedge_app.b.status}"\n') + app('b', '    status: ${cloud_floating_ip.edge.status}\n'));
    expect(errors.map((d) => [d.code, d.summary, d.detail, d.address])).toEqual([
      [
        'invalid-reference',
        'status takes a number, but 1${fastedge_app.b.status} is text (a reference inside a string is written as text)',
        'Write the reference alone as the whole value to keep its type.',
        'fastedge_app.a',
      ],
      ['invalid-reference', 'status takes a number, but ${cloud_floating_ip.edge.status} is a string', undefined, 'fastedge_app.b'],
    ]);
    expect(Object.keys(errors[1]!)).not.toContain('detail');
  });

  it('names each type a field takes, and a boolean field refuses a reference to a number', async () => {
    const cdn = `  site:\n    type: cdn_resource\n    cname: cdn.example.com\n    origin: origin.example.com\n`;
    const errors = await errorsOf(head + app('a') + cdn + '    active: ${fastedge_app.a.id}\n    description: ${fastedge_app.a.id}\n');
    expect(errors.map((d) => d.summary)).toEqual(['active takes a boolean, but ${fastedge_app.a.id} is a number']);
  });

  it('takes a reference of the right type into an enum field, refuses one into a map, and leaves an unknown field to the schema', async () => {
    const cdn = (extra: string) => `  site:\n    type: cdn_resource\n    cname: cdn.example.com\n    origin: origin.example.com\n${extra}`;
    expect(await errorsOf(head + app('a') + cdn('    origin_protocol: ${fastedge_app.a.name}\n'))).toEqual([]);
    expect((await errorsOf(head + app('a') + app('b', '    env: ${fastedge_app.a.name}\n'))).map((d) => d.summary)).toEqual([
      'env takes a record, but ${fastedge_app.a.name} is a string',
    ]);
    expect((await errorsOf(head + app('a') + app('b', '    colour: ${fastedge_app.a.name}\n'))).map((d) => d.code)).toEqual(['unknown-field']);
  });

  it('reads through lists and maps to the field a reference stands in', async () => {
    const group = `  web:\n    type: cloud_security_group\n    name: web\n    rules:\n      - { direction: ingress, protocol: tcp, port_range_min: "\${fastedge_app.a.id}", port_range_max: "\${fastedge_app.a.name}" }\n`;
    const errors = await errorsOf(head + app('a') + group);
    expect(errors.map((d) => d.summary)).toEqual(['rules[0].port_range_max takes a number, but ${fastedge_app.a.name} is a string']);
    // A string map: a number is written as text, and a bad value next to a reference is still reported.
    const env = await errorsOf(head + app('a') + app('b', '    env:\n      A: ${fastedge_app.a.id}\n      B: 5\n'));
    expect(env.map((d) => [d.summary, d.range?.start.line])).toEqual([[expect.stringContaining('env.B'), 17]]);
  });

  it('says why a block being deleted cannot be read', async () => {
    const errors = await errorsOf(head + app('a', '    comment: ${fastedge_app.gone.name}\n') + '  gone:\n    type: fastedge_app\n    app_id: 9\n    ensure: absent\n');
    expect(errors).toEqual([
      {
        severity: 'error',
        code: 'invalid-reference',
        summary: '${fastedge_app.gone.name} refers to fastedge_app.gone, which has ensure: absent',
        detail: 'A block being deleted has nothing to read; remove the reference or the ensure: absent.',
        address: 'fastedge_app.a',
        range: at(11, 14),
      },
    ]);
  });

  it('refuses a reference anywhere in the settings read before planning, once, at the first', async () => {
    const text = `version: 1
name: refs
defaults:
  project_id: 1
  region_id: 76
  tags: { a: [x, "\${cloud_floating_ip.edge.id}", "\${cloud_floating_ip.edge.status}"] }
resources:
  edge:
    type: cloud_floating_ip
`;
    expect((await errorsOf(text)).filter((d) => d.code === 'invalid-reference')).toEqual([
      {
        severity: 'error',
        code: 'invalid-reference',
        summary: 'defaults: cannot hold a reference (${cloud_floating_ip.edge.id}): it is read before any resource is planned',
        detail: 'References ${TYPE.NAME.FIELD} stand in the attributes of resource blocks only.',
        range: at(6, 18),
      },
    ]);
  });
});

describe('a block holding references, once loaded', () => {
  it('keeps the defaults of an object a reference stands in (the reference validated as a value of its type)', async () => {
    const group = `  web:\n    type: cloud_security_group\n    name: web\n    rules:\n      - { direction: ingress, protocol: tcp, port_range_min: "\${fastedge_app.a.id}", port_range_max: 8080 }\n`;
    const { stack, diagnostics } = await load(head + app('a') + group);
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const rules = (stack!.resources.find((b) => b.address === 'cloud_security_group.web')!.attributes as { rules: Record<string, unknown>[] }).rules;
    expect(rules[0]).toMatchObject({ ethertype: 'IPv4', port_range_min: '${fastedge_app.a.id}', port_range_max: 8080 });
  });
});

describe("a record set's zone read from a zone block", () => {
  const rrset = (name: string, zone: string) =>
    `  ${name}:\n    type: dns_rrset\n    zone: ${zone}\n    name: ${name}\n    record_type: A\n    resource_records: [{ content: [192.0.2.1] }]\n`;
  const dns = async (text: string) => (await errorsOf(`version: 1\nresources:\n${text}`)).map((d) => [d.code, d.summary, d.address]);

  it('is written out only from a literal name: not from a zone without one, a number, or a reference', async () => {
    const refused = (address: string) => ['invalid-reference', expect.stringMatching(/^zone cannot hold a reference \(\$\{dns_zone\.main\.name\}\): /), address];
    expect(await dns(`  main:\n    type: dns_zone\n${rrset('www', '${dns_zone.main.name}')}`)).toContainEqual(refused('dns_rrset.www'));
    expect(await dns(`  main:\n    type: dns_zone\n    name: 5\n${rrset('www', '${dns_zone.main.name}')}`)).toContainEqual(refused('dns_rrset.www'));
    expect(
      await dns(`${rrset('www', '${dns_zone.main.name}')}  main:\n    type: dns_zone\n    name: \${dns_zone.other.name}\n  other:\n    type: dns_zone\n    name: example.org\n`),
    ).toContainEqual(refused('dns_rrset.www'));
  });

  it("names a typo in the zone block's address as an invalid reference of the record set", async () => {
    expect(await dns(`  main:\n    type: dns_zone\n    name: example.com\n${rrset('www', '${dns_zone.mian.name}')}`)).toEqual([
      ['invalid-reference', '${dns_zone.mian.name} refers to dns_zone.mian, which is not in the stack; did you mean "dns_zone.main"?', 'dns_rrset.www'],
    ]);
  });

  it('is never the record set itself', async () => {
    const errors = await dns(rrset('www', '${dns_rrset.www.name}'));
    expect(errors.map(([, summary]) => summary)).not.toContainEqual(expect.stringContaining('cycle'));
    expect(errors.length).toBeGreaterThan(0);
  });
});

describe('checkReferenceTargets', () => {
  const ref = (template: string): BlockReference => ({
    path: ['comment'],
    template,
    parts: parseTemplate(template)!,
    range: { filename: 's.yaml', start: { line: 1, column: 1 }, end: { line: 1, column: 2 } },
  });
  const blocks = [
    { address: 'fastedge_app.a', references: [ref('${fastedge_app.bb.name}'), ref('${fastedge_app.cc.name}')] },
    { address: 'fastedge_app.b', references: [ref('${fastedge_app.cc.name}')] },
  ];
  const addresses = new Set(['fastedge_app.a', 'fastedge_app.b', 'fastedge_app.c']);

  it('gives a did-you-mean to as many missing addresses as its budget allows, then none', () => {
    const left = { count: 2 };
    const out: Diagnostic[] = checkReferenceTargets(blocks, addresses, new Set(), left);
    expect(out.map((d) => [d.address, d.summary, d.code])).toEqual([
      ['fastedge_app.a', '${fastedge_app.bb.name} refers to fastedge_app.bb, which is not in the stack; did you mean "fastedge_app.b"?', 'invalid-reference'],
      ['fastedge_app.a', '${fastedge_app.cc.name} refers to fastedge_app.cc, which is not in the stack; did you mean "fastedge_app.c"?', 'invalid-reference'],
      ['fastedge_app.b', '${fastedge_app.cc.name} refers to fastedge_app.cc, which is not in the stack', 'invalid-reference'],
    ]);
    expect(out.map((d) => Object.hasOwn(d, 'detail'))).toEqual([false, false, false]);
    expect(checkReferenceTargets(blocks, addresses, new Set(), { count: 0 }).map((d) => d.summary.includes('did you mean'))).toEqual([false, false, false]);
  });

  it('finds nothing wrong with references to other blocks of the stack', () => {
    expect(checkReferenceTargets([{ address: 'fastedge_app.a', references: [ref('${fastedge_app.b.name}-${fastedge_app.c.id}')] }], addresses, new Set(), { count: 5 })).toEqual(
      [],
    );
  });
});
