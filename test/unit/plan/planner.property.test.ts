import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ResourceBlock } from '../../../src/config/types.js';
import { applyTagsPatch } from '../../../src/emulator/tags.js';
import { upgradeVersions } from '../../../src/emulator/services/k8s/routes.js';
import type { LiveTag, TagsPatch } from '../../../src/kinds/tags-merge-patch.js';
import { buildPlan } from '../../../src/plan/planner.js';
import type { Plan, ResourceChange } from '../../../src/plan/types.js';
import type { ReadResult } from '../../../src/kinds/provider.js';
import { providers } from '../../../src/kinds/providers.js';
import { resource, stackOf } from '../../helpers/stack.js';

const KEYS = ['env', 'team', 'owner', 'tier', 'managed-by'] as const;
const VALUES = ['prod', 'staging', 'edge'] as const;
const FLAVORS = ['g2-standard-2-4', 'g2-standard-4-8', 'g2-standard-8-16'] as const;
const CATALOGUE = ['v1.28.9', 'v1.29.8', 'v1.30.6', 'v1.31.3', 'v1.32.1'];
const EMAILS = ['ops@example.com', 'sec@example.com'] as const;

/** One generated resource: its block (without name and dependencies) and what a read observed. */
interface Generated {
  type: ResourceBlock['type'];
  attributes: Record<string, unknown>;
  read: ReadResult;
}

const exists = (state: Record<string, unknown>, lockTaskId: string | null = null): ReadResult => ({ ok: true, observation: { exists: true, state, lockTaskId } });
const GONE: ReadResult = { ok: true, observation: { exists: false } };
const lock = fc.option(fc.constant('5e0c0c0c-0000-4000-8000-000000000001'), { nil: null, freq: 4 });

const floatingIp = fc
  .record({
    live: fc.uniqueArray(fc.record({ key: fc.constantFrom(...KEYS), value: fc.constantFrom(...VALUES), read_only: fc.boolean() }), { selector: (t) => t.key, maxLength: 5 }),
    desired: fc.option(fc.dictionary(fc.constantFrom(...KEYS), fc.option(fc.constantFrom(...VALUES), { nil: null }), { maxKeys: 5 }), { nil: undefined }),
    policy: fc.constantFrom('authoritative' as const, 'merge' as const),
    lock,
  })
  .map(({ live, desired, policy, lock }): Generated => ({
    type: 'cloud_floating_ip',
    attributes: { project_id: 1, region_id: 76, floating_ip_id: 'f', ...(desired === undefined ? {} : { tags: desired }), tags_policy: policy, ensure: 'present' },
    read: exists({ floating_ip_id: 'f', floating_ip_address: '203.0.113.1', status: 'ACTIVE', tags: live }, lock),
  }));

const instance = fc
  .record({ live: fc.constantFrom(...FLAVORS), desired: fc.constantFrom(...FLAVORS), available: fc.subarray([...FLAVORS]), lock })
  .map(({ live, desired, available, lock }): Generated => ({
    type: 'cloud_instance',
    attributes: { project_id: 1, region_id: 76, instance_id: 'i', flavor_id: desired, ensure: 'present' },
    // As the provider reads it: the flavors on offer only when a resize is needed.
    read: exists({ instance_id: 'i', name: 'vm', status: 'ACTIVE', flavor_id: live, ...(live === desired ? {} : { available_flavors: available }) }, lock),
  }));

const cluster = fc.record({ live: fc.constantFrom(...CATALOGUE), desired: fc.constantFrom(...CATALOGUE), lock }).map(({ live, desired, lock }): Generated => ({
  type: 'cloud_k8s_cluster',
  attributes: { project_id: 1, region_id: 76, cluster_name: 'c', version: desired, ensure: 'present' },
  read: exists(clusterState(live, desired), lock),
}));

/** A cluster as the provider reads it: the offered upgrades (the platform's rule) only when the version differs. */
function clusterState(version: string, desired: string): Record<string, unknown> {
  return { cluster_name: 'c', version, status: 'Provisioned', ...(version === desired ? {} : { upgrade_versions: upgradeVersions(CATALOGUE, version) }) };
}

const setting = fc
  .record({
    type: fc.constantFrom('failed_login' as const, 'deletion_request' as const),
    live: fc.record({ email: fc.constantFrom(...EMAILS), enabled: fc.boolean() }),
    desired: fc.record({ email: fc.constantFrom(...EMAILS), enabled: fc.option(fc.boolean(), { nil: undefined }) }),
  })
  .map(({ type, live, desired }): Generated => ({
    type: 'iam_reseller_notification_setting',
    attributes: {
      reseller_id: 7,
      notification_settings_id: 3,
      notification_type: type,
      email: desired.email,
      ...(desired.enabled === undefined ? {} : { enabled: desired.enabled }),
      ensure: 'present',
    },
    read: exists({ notification_settings_id: 3, notification_type: type, ...live }),
  }));

const deletable = fc
  .record({
    type: fc.constantFrom('fastedge_app' as const, 'streaming_player' as const, 'cloud_quota_limit_request' as const),
    ensure: fc.constantFrom('present' as const, 'absent' as const),
    exists: fc.boolean(),
  })
  .map(({ type, ensure, exists: there }): Generated => {
    const idField = { fastedge_app: 'app_id', streaming_player: 'player_id', cloud_quota_limit_request: 'request_id' }[type];
    return { type, attributes: { [idField]: 9, ensure }, read: there ? exists({ [idField]: 9, name: 'n' }) : GONE };
  });

/** A failed read: the plan reports it and plans everything else. */
const failedRead = fc.constant<Generated>({
  type: 'cloud_instance',
  attributes: { project_id: 1, region_id: 76, instance_id: 'i', flavor_id: FLAVORS[1], ensure: 'present' },
  read: { ok: false, error: { summary: '503 Service Unavailable' } },
});

/** A stack of up to 8 resources of every kind, each depending on some earlier ones, and what reading it observed. */
const world = fc
  .array(
    fc.record({
      resource: fc.oneof({ arbitrary: floatingIp, weight: 3 }, instance, cluster, setting, deletable, { arbitrary: failedRead, weight: 1 }),
      dependsOn: fc.array(fc.nat(), { maxLength: 2 }),
    }),
    { maxLength: 8 },
  )
  .map((items) => {
    const blocks: ResourceBlock[] = [];
    const reads = new Map<string, ReadResult>();
    items.forEach(({ resource: g, dependsOn }, i) => {
      const deps = i === 0 ? [] : [...new Set(dependsOn.map((n) => blocks[n % i]!.address))];
      const block = resource(g.type, `r${i}`, g.attributes as never, deps);
      blocks.push(block);
      reads.set(block.address, g.read);
    });
    return { blocks, reads };
  });

function plan(blocks: ResourceBlock[], reads: ReadonlyMap<string, ReadResult>): Plan {
  return buildPlan({
    stack: stackOf(blocks),
    reads,
    checks: new Map(),
    planners: providers.resources,
    baseUrl: 'http://127.0.0.1:1',
    createdAt: '2026-01-01T00:00:00.000Z',
    edgeformVersion: '0.0.0-test',
  });
}

/**
 * What the platform looks like once a change was carried out, as apply would: the tags merge
 * patch applied by the emulator's own rule, the flavor or version of the plan's `after`, the
 * settings body written, the resource gone. A no-op leaves the observation as it was.
 */
function carryOut(change: ResourceChange, read: ReadResult): ReadResult {
  if (change.action === 'no-op' || !read.ok || !read.observation.exists) return read;
  if (change.action === 'delete') return GONE;
  const state = read.observation.state;
  const after = change.after as Record<string, unknown>;
  switch (change.type) {
    case 'cloud_floating_ip': {
      const tags = applyTagsPatch(state.tags as LiveTag[], change.payload!.tags_patch as TagsPatch);
      return exists({ ...state, tags });
    }
    case 'cloud_instance':
      return exists({ instance_id: state.instance_id, name: state.name, status: state.status, flavor_id: change.payload!.flavor_id });
    case 'cloud_k8s_cluster':
      return exists(clusterState(String(after.version), String(change.desired.version)));
    case 'iam_reseller_notification_setting':
      return exists({ ...state, ...(change.payload!.body as Record<string, unknown>) });
    default:
      throw new Error(`nothing to carry out for ${change.type} ${change.action}`);
  }
}

describe('buildPlan (property-based)', () => {
  it('is idempotent: once every planned change is carried out, a new plan has no changes, ends where the old one said, and reports the same problems', () => {
    fc.assert(
      fc.property(world, ({ blocks, reads }) => {
        const first = plan(blocks, reads);
        const after = new Map(reads);
        for (const change of first.resource_changes) after.set(change.address, carryOut(change, reads.get(change.address)!));
        const second = plan(blocks, after);
        expect(second.resource_changes.filter((c) => c.action !== 'no-op')).toEqual([]);
        expect(second.summary.change + second.summary.destroy).toBe(0);
        expect(second.applyable).toBe(false);
        expect(second.diagnostics).toEqual(first.diagnostics);
        const before = new Map(second.resource_changes.map((c) => [c.address, c.before]));
        for (const change of first.resource_changes.filter((c) => c.action === 'update')) expect(before.get(change.address)).toEqual(change.after);
      }),
    );
  });

  it('is deterministic: the same stack and observations give the same plan, whatever order the reads came in, and the inputs are left as they were', () => {
    fc.assert(
      fc.property(
        world.chain((w) => fc.tuple(fc.constant(w), fc.shuffledSubarray([...w.reads.keys()], { minLength: w.reads.size, maxLength: w.reads.size }))),
        ([{ blocks, reads }, order]) => {
          const snapshot = structuredClone({ blocks, reads: [...reads] });
          const a = plan(blocks, reads);
          const b = plan(blocks, new Map(order.map((address) => [address, reads.get(address)!])));
          expect(b).toEqual(a);
          expect({ blocks, reads: [...reads] }).toEqual(snapshot);
        },
      ),
    );
  });

  it('orders every change after the resources it depends on and plans each block at most once', () => {
    fc.assert(
      fc.property(world, ({ blocks, reads }) => {
        const p = plan(blocks, reads);
        const position = new Map(p.resource_changes.map((c, i) => [c.address, i]));
        expect(position.size).toBe(p.resource_changes.length);
        for (const change of p.resource_changes) {
          for (const dep of change.depends_on) if (position.has(dep)) expect(position.get(dep)!).toBeLessThan(position.get(change.address)!);
        }
        // Every block is either planned or reported (a failed read, a missing resource, a plan error).
        const reported = new Set(p.diagnostics.map((d) => d.address));
        for (const block of blocks) expect(position.has(block.address) !== reported.has(block.address)).toBe(true);
      }),
    );
  });
});
