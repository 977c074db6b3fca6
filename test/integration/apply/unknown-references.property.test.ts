/**
 * A block whose references are all unknown at plan time applies on the first run, with the body
 * the plan promised: for every resource kind, and every field of it that takes a reference. Each
 * kind has a base block that applies against the chaos world's fixtures; a run picks some of its
 * fields (each field alone first, then subsets drawn by fast-check) and writes each one as a
 * whole reference to a block created in the same apply whose readable field gives exactly that
 * value (text: a quota request's `description`; a number: a volume's `size`), so the plan knows
 * none of them. The plan must show them `(known after apply)`, the apply must succeed, and the
 * block must plan as a no-op afterwards.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../../src/api/client.js';
import { executePlan, type ConfirmPolicy } from '../../../src/apply/executor.js';
import { succeeded } from '../../../src/apply/outcome.js';
import { fieldsReadBefore } from '../../../src/config/references.js';
import type { ProviderContext } from '../../../src/kinds/provider.js';
import { providers } from '../../../src/kinds/providers.js';
import { RESOURCE_KINDS, RESOURCE_TYPES, type ResourceType } from '../../../src/kinds/registry.js';
import { formatPath } from '../../../src/model/references.js';
import { chaosWorld } from '../../helpers/chaos.js';
import { connectTo, driveTasks, planYaml } from '../../helpers/apply.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';

const id = (prefix: string, n: number) => `${prefix}-0000-4000-8000-${String(n).padStart(12, '0')}`;
/** An OpenSSH ed25519 public key line of 32 given bytes. */
const sshKey = (byte: number) => {
  const part = (b: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, b.length]), b]);
  return `ssh-ed25519 ${Buffer.concat([part(Buffer.from('ssh-ed25519')), part(Buffer.alloc(32, byte))]).toString('base64')} prop@example`;
};
const VTT = 'WEBVTT\n\n1\n00:00:01.000 --> 00:00:02.000\nHallo\n';

/** A block of each kind that applies against the chaos world (a create where edgeform creates, else an adopted resource as it is). */
const BASE: Record<ResourceType, Record<string, unknown>> = {
  cloud_floating_ip: { tags: { env: 'prop', team: 'edge' } },
  cloud_instance: {
    name: 'prop-vm',
    flavor_id: 'g2-standard-2-4',
    image_id: id('2b000000', 1),
    boot_volume_size: 20,
    interfaces: [{ type: 'subnet', network_id: id('2c000000', 1), subnet_id: id('2d000000', 1) }],
    ssh_key_name: 'key-1',
    user_data: '#cloud-config\nruncmd: [echo hi]\n',
    tags: { role: 'web' },
  },
  cloud_k8s_cluster: { cluster_name: 'cluster-1', version: 'v1.29.8' },
  cloud_network: { name: 'prop-net', network_type: 'vxlan', tags: { env: 'prop' } },
  cloud_subnet: { name: 'prop-subnet', network_id: id('3e000000', 1), cidr: '10.1.8.0/24', gateway_ip: '10.1.8.1', dns_nameservers: ['8.8.8.8'], tags: { env: 'prop' } },
  cloud_ssh_key: { name: 'prop-key', public_key: sshKey(7) },
  cloud_security_group: {
    name: 'prop-sg',
    description: 'a prop group',
    rules: [{ direction: 'ingress', protocol: 'tcp', port_range_min: 22, port_range_max: 22, remote_ip_prefix: '10.0.0.0/8' }],
    tags: { env: 'prop' },
  },
  cloud_volume: { name: 'prop-vol', size: 10, volume_type: 'standard', tags: { env: 'prop' } },
  cloud_quota_limit_request: { description: 'prop request', requested_limits: { regional_limits: [{ region_id: 76, cpu_count_limit: 8 }] } },
  fastedge_app: { name: 'prop-app', binary: 502, env: { MODE: 'prop' }, rsp_headers: { 'x-prop': 'yes' }, comment: 'a prop app' },
  streaming_player: { name: 'prop-player', framework: 'prop', bg_color: '#000000', logo: 'https://example.com/logo.png' },
  streaming_video_subtitle: { video_id: 7005, language: 'ger', name: 'Deutsch', vtt: VTT },
  iam_reseller_notification_setting: { reseller_id: 7, notification_settings_id: 105, notification_type: 'deletion_request', email: 'ops5@example.com' },
  dns_zone: { name: 'prop.example', contact: 'admin.prop.example', nx_ttl: 300, expiry: 604800 },
  dns_rrset: { zone: 'chaos.example', name: 'prop.chaos.example.', record_type: 'A', ttl: 120, resource_records: [{ content: ['192.0.2.77'] }] },
  cdn_origin_group: { name: 'prop-origins', origins: [{ source: 'origin.prop.example' }] },
  cdn_resource: { cname: 'prop.chaos.example', origin_group: 1, description: 'a prop site' },
  cdn_rule: { resource_id: 1, name: 'prop-rule', rule: '/prop/.*', rule_type: 0, weight: 3 },
  cloud_load_balancer: { name: 'prop-lb', flavor: 'lb1-2-4', tags: { env: 'prop' } },
  cloud_lb_listener: { load_balancer_id: id('4a000000', 1), name: 'prop-listener', protocol: 'TCP', protocol_port: 8443, connection_limit: 3000 },
  cloud_lb_pool: {
    load_balancer_id: id('4a000000', 1),
    name: 'prop-pool',
    lb_algorithm: 'ROUND_ROBIN',
    protocol: 'TCP',
    members: [{ address: '10.0.0.20', protocol_port: 80, weight: 2 }],
  },
  cloud_secret: { secret_id: id('4b000000', 1), name: 'chaos-cert' },
  cloud_lb_l7policy: {
    listener_id: id('4c000000', 1),
    name: 'prop-policy',
    action: 'REDIRECT_PREFIX',
    redirect_prefix: 'https://prop.example',
    rules: [{ type: 'PATH', compare_type: 'STARTS_WITH', value: '/' }],
  },
};

type Leaf = { path: (string | number)[]; value: string | number };

/** The string and number values of a block the stack may write as a reference (not a field it is read by, a file, `ensure` or a policy), in order. */
function referable(type: ResourceType, block: Record<string, unknown>): Leaf[] {
  const kind = RESOURCE_KINDS[type];
  const before = fieldsReadBefore(kind);
  const leaves: Leaf[] = [];
  const walk = (path: (string | number)[], value: unknown) => {
    if (typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value) && value >= 1)) leaves.push({ path, value });
    else if (Array.isArray(value)) value.forEach((v, i) => walk([...path, i], v));
    else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) walk([...path, k], v);
  };
  for (const [field, value] of Object.entries(block)) {
    if (before.has(field) || field === 'ensure' || field.endsWith('_policy') || kind.files?.[field] !== undefined) continue;
    walk([field], value);
  }
  return leaves;
}

/** A stack of the kind's base block with `chosen` written as references, and the blocks they read. */
function stackOf(type: ResourceType, chosen: readonly Leaf[]): string {
  const block: Record<string, unknown> = structuredClone(BASE[type]);
  const mirrors = new Map<string | number, string>();
  for (const { path, value } of chosen) {
    let reference = mirrors.get(value);
    if (reference === undefined) {
      const n = mirrors.size + 1;
      reference = typeof value === 'number' ? `\${cloud_volume.m${n}.size}` : `\${cloud_quota_limit_request.m${n}.description}`;
      mirrors.set(value, reference);
    }
    let at: Record<string | number, unknown> = block;
    for (const segment of path.slice(0, -1)) at = at[segment] as Record<string | number, unknown>;
    at[path.at(-1)!] = reference;
  }
  const lines = [`  subject: ${JSON.stringify({ type, ...block })}`];
  let n = 0;
  for (const [value] of mirrors) {
    n += 1;
    lines.push(
      typeof value === 'number'
        ? `  m${n}: ${JSON.stringify({ type: 'cloud_volume', name: `mirror-${n}`, size: value })}`
        : `  m${n}: ${JSON.stringify({ type: 'cloud_quota_limit_request', description: value, requested_limits: { regional_limits: [{ region_id: 76, cpu_count_limit: n }] } })}`,
    );
  }
  return `version: 1\nname: prop\ndefaults: { project_id: 1, region_id: 76 }\nresources:\n${lines.join('\n')}\n`;
}

const quickConfirm: ConfirmPolicy = { attempts: 3, delayMs: () => 0, sleep: () => Promise.resolve() };

describe('a block whose references are all unknown at plan time applies on the first run', () => {
  let emu: TestEmulator;
  let api: ApiClient;
  let ctx: ProviderContext;
  beforeAll(async () => {
    emu = await startTestEmulator({ taskDurationMs: 0, fixtures: chaosWorld().fixtures });
    ({ api, ctx } = connectTo(emu));
  });
  afterAll(async () => {
    await api.close();
    await emu.close();
  });

  /** Plans and applies the kind's block with `chosen` as references; returns what to assert on. */
  async function applyWith(type: ResourceType, chosen: readonly Leaf[]): Promise<void> {
    emu.reset();
    const yaml = stackOf(type, chosen);
    const plan = await planYaml(ctx, emu.url, yaml);
    const subject = plan.resource_changes.find((c) => c.address === `${type}.subject`)!;
    // Every chosen field is unknown at plan time.
    expect((subject.references ?? []).map((r) => formatPath(r.path)).sort(), yaml).toEqual(chosen.map((c) => formatPath(c.path)).sort());
    const outcome = await driveTasks(emu, executePlan({ plan, providers: providers.resources, ctx, maxTasks: 10, confirm: quickConfirm }));
    expect(succeeded(outcome), `${yaml}\n${JSON.stringify(outcome.resources.filter((r) => r.status !== 'applied' && r.status !== 'unchanged'))}`).toBe(true);
    const again = await planYaml(ctx, emu.url, yaml);
    expect(
      again.resource_changes.filter((c) => c.action !== 'no-op').map((c) => `${c.address} ${c.action}`),
      yaml,
    ).toEqual([]);
  }

  it('has a base block for every resource kind, which applies as it is', async () => {
    expect(Object.keys(BASE).sort()).toEqual([...RESOURCE_TYPES].sort());
    for (const type of RESOURCE_TYPES) await applyWith(type, []);
  });

  for (const type of RESOURCE_TYPES) {
    const leaves = referable(type, BASE[type]);
    if (leaves.length === 0) {
      it(`${type}: every field it has is read before anything is applied, so none takes a reference`, () => {
        expect([...fieldsReadBefore(RESOURCE_KINDS[type])].sort()).toEqual(expect.arrayContaining(Object.keys(BASE[type]).filter((f) => typeof BASE[type][f] !== 'boolean')));
      });
      continue;
    }
    // Each field alone (the examples, which count among the runs), then two subsets drawn at random.
    it(`${type}: ${leaves.map((l) => formatPath(l.path)).join(', ')}`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.subarray(leaves, { minLength: 1 }), (chosen) => applyWith(type, chosen)),
        { numRuns: leaves.length + 2, examples: leaves.map((leaf) => [[leaf]]) },
      );
    });
  }
});
