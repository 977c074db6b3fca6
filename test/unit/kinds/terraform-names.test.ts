import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadStack } from '../../../src/config/load-stack.js';
import { fieldsAt } from '../../../src/config/schema-walk.js';
import { RESOURCE_KINDS, type KindSpec } from '../../../src/kinds/registry.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

/**
 * Each kind with a counterpart in the Gcore Terraform provider declares the provider's names for
 * its fields (KindSpec.terraform), held here against the provider's own arguments (a copy of its
 * generated docs' schemas, test/fixtures/terraform-provider-gcore/arguments.json) and against the
 * kind's schema, so no table names a field either side does not have.
 */
const ARGUMENTS = JSON.parse(readFileSync(new URL('../../fixtures/terraform-provider-gcore/arguments.json', import.meta.url), 'utf8')) as {
  resources: Record<string, string[]>;
};
const KINDS = Object.values(RESOURCE_KINDS as Record<string, KindSpec>).filter((kind) => kind.terraform !== undefined);

/**
 * The provider's path of a table entry: edgeform's path with each field named as the provider
 * names it (an entry of the table at that level renaming it, else the same name), `*` dropped.
 */
function providerPath(fields: Readonly<Record<string, string>>, pattern: string): string {
  const segments = pattern.split('.');
  const out: string[] = [];
  for (let i = 0; i < segments.length - 1; i++) {
    if (segments[i] === '*') continue;
    const parent = segments.slice(0, i).join('.');
    const renamed = Object.entries(fields).find(([key, value]) => value === segments[i] && key.split('.').slice(0, -1).join('.') === parent);
    out.push(renamed ? renamed[0].split('.').at(-1)! : segments[i]!);
  }
  return [...out, segments.at(-1)!].join('.');
}

describe("the Terraform provider's names of each kind's fields", () => {
  it('are declared by every kind with a counterpart, one resource of the provider each', () => {
    expect(KINDS.map((kind) => kind.terraform!.resource).sort()).toEqual(Object.keys(ARGUMENTS.resources).sort());
  });

  it.each(KINDS.map((kind) => [kind.type, kind] as const))("%s: each is an argument of the provider's resource and meets a field of the kind where it stands", (_type, kind) => {
    const { resource, fields } = kind.terraform!;
    const argumentsOf = new Set(ARGUMENTS.resources[resource]);
    for (const [pattern, field] of Object.entries(fields)) {
      expect(argumentsOf, `${resource} has ${providerPath(fields, pattern)}`).toContain(providerPath(fields, pattern));
      const at = pattern
        .split('.')
        .slice(0, -1)
        .map((segment) => (segment === '*' ? 0 : segment));
      const accepted = fieldsAt(kind.shape, at);
      expect(accepted, `${kind.type} has ${field} where ${pattern} stands`).toContain(field);
      expect(accepted, `${kind.type} does not itself accept ${pattern}`).not.toContain(pattern.split('.').at(-1));
    }
  });

  it("suggests the kind's field for the provider's name, at the key, in a block, in a list's items and among CDN options", async () => {
    const stack = [
      'version: 1',
      'name: tf',
      'defaults: { project_id: 1, region_id: 76 }',
      'resources:',
      '  vm:',
      '    type: cloud_instance',
      '    instance_id: a7e7e8d6-0b4c-4c2e-9d1e-2f0f0c7b9a11',
      '    flavor_id: g2-standard-2-4',
      '    keypair_name: deploy',
      '    interfaces:',
      '      - { type: external, existing_fip_id: 726ecfcc-7fd0-4e30-a86e-7892524aa483 }',
      '  cdn:',
      '    type: cdn_resource',
      '    cname: cdn.example.com',
      '    origin: origin.example.com',
      '    options:',
      '      gzip_on: { enabled: true, value: true }',
      '  typo:',
      '    type: cloud_volume',
      '    name: data-volume',
      '    size: 10',
      '    volume_typ: ssd_hiiops',
      '',
    ].join('\n');
    const dir = writeStackFiles({ 'stack.yaml': stack });
    const { diagnostics } = await loadStack(join(dir, 'stack.yaml'), {});
    expect(diagnostics.map((d) => [d.summary, d.range?.start.line, d.range?.start.column])).toEqual([
      ['unknown field "keypair_name" in cloud_instance; did you mean "ssh_key_name" (the Terraform provider\'s "keypair_name")?', 9, 5],
      ['unknown field "existing_fip_id" in cloud_instance interfaces[0]; did you mean "floating_ip_id" (the Terraform provider\'s "existing_fip_id")?', 11, 27],
      ['unknown field "gzip_on" in cdn_resource options; did you mean "gzipOn" (the Terraform provider\'s "gzip_on")?', 17, 7],
      // A name of no provider still gets the ordinary did-you-mean.
      ['unknown field "volume_typ" in cloud_volume; did you mean "volume_type"?', 22, 5],
    ]);
  });
});

describe('the load balancer kinds: fields holding the id of a secret, and their former names', () => {
  const load = async (blocks: string[]) => {
    const stack = ['version: 1', 'name: lb', 'defaults: { project_id: 1, region_id: 76 }', 'resources:', ...blocks, ''].join('\n');
    const dir = writeStackFiles({ 'stack.yaml': stack });
    return (await loadStack(join(dir, 'stack.yaml'), {})).diagnostics.map((d) => [d.summary, d.range?.start.line, d.range?.start.column]);
  };
  const LB = '5a000000-0000-4000-8000-000000000001';
  const SECRET = '5c000000-0000-4000-8000-000000000001';
  const listener = (extra: string) => `  https: { type: cloud_lb_listener, name: https, load_balancer_id: ${LB}, protocol: TERMINATED_HTTPS, protocol_port: 443, ${extra} }`;

  it('reads the vendor names secret_id, sni_secret_id, ca_secret_id and crl_secret_id as ids, not credentials', async () => {
    expect(
      await load([
        `  cert: { type: cloud_secret, name: web-cert, secret_id: ${SECRET} }`,
        listener(`secret_id: "\${cloud_secret.cert.id}", sni_secret_id: ["\${cloud_secret.cert.id}"]`),
        `  pool: { type: cloud_lb_pool, name: web, load_balancer_id: ${LB}, lb_algorithm: ROUND_ROBIN, protocol: HTTPS, secret_id: ${SECRET}, ca_secret_id: ${SECRET}, crl_secret_id: ${SECRET} }`,
      ]),
    ).toEqual([]);
  });

  it('still refuses any other key that names a credential in those blocks', async () => {
    expect(await load([listener(`secret_id: ${SECRET}, client_secret: x`)])).toEqual([['"client_secret" looks like a credential; a stack never holds secrets', 5, 203]]);
  });

  it("suggests the current name for a former one, and the kind's field for the Terraform provider's name", async () => {
    expect(
      await load([
        listener(`certificate_id: ${SECRET}, sni_certificate_ids: []`),
        `  cert: { type: cloud_secret, name: web-cert, certificate_id: ${SECRET} }`,
        `  pool: { type: cloud_lb_pool, name: web, loadbalancer_id: ${LB}, lb_algorithm: ROUND_ROBIN, protocol: HTTP, crl_id: ${SECRET}, health_monitor: {} }`,
        `  l2: { type: cloud_lb_listener, name: l2, loadbalancer_id: ${LB}, protocol: TCP, protocol_port: 80, sni_secret_ids: [] }`,
      ]).then((d) => d.map(([summary]) => String(summary)).filter((summary) => summary.startsWith('unknown field'))),
    ).toEqual([
      'unknown field "certificate_id" in cloud_lb_listener; did you mean "secret_id" ("certificate_id" is its former name)?',
      'unknown field "sni_certificate_ids" in cloud_lb_listener; did you mean "sni_secret_id" ("sni_certificate_ids" is its former name)?',
      'unknown field "certificate_id" in cloud_secret; did you mean "secret_id" ("certificate_id" is its former name)?',
      'unknown field "loadbalancer_id" in cloud_lb_pool; did you mean "load_balancer_id" (the Terraform provider\'s "loadbalancer_id")?',
      'unknown field "crl_id" in cloud_lb_pool; did you mean "crl_secret_id" ("crl_id" is its former name)?',
      'unknown field "health_monitor" in cloud_lb_pool; did you mean "healthmonitor" (the Terraform provider\'s "health_monitor")?',
      'unknown field "loadbalancer_id" in cloud_lb_listener; did you mean "load_balancer_id" (the Terraform provider\'s "loadbalancer_id")?',
      'unknown field "sni_secret_ids" in cloud_lb_listener; did you mean "sni_secret_id" ("sni_secret_ids" is its former name)?',
    ]);
  });
});
