/**
 * Grouped reads change how the platform is read, never what is planned: over randomly generated
 * worlds (several projects, regions and resellers; resources missing from the platform or living
 * elsewhere; locks held by running tasks; lists of several pages), the plan made with grouped
 * reads equals the plan made with one read per resource, and costs at most one request more per
 * group.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ResourceBlock } from '../../../src/config/types.js';
import type { EmulatorFixtures } from '../../../src/emulator/index.js';
import { canonicalJson } from '../../../src/model/fingerprint.js';
import type { ProviderRegistry } from '../../../src/kinds/provider.js';
import { providers } from '../../../src/kinds/providers.js';
import { readStack } from '../../../src/kinds/read-stack.js';
import { RESOURCE_TYPES } from '../../../src/kinds/registry.js';
import { startTestEmulator, type TestEmulator, closeAfterEach } from '../../helpers/emulator.js';
import { createProviderHarness, planOver, type ProviderHarness } from '../../helpers/providers.js';
import { resource, stackOf } from '../../helpers/stack.js';

/** The same providers, each reading one resource at a time (no grouped read). */
function withoutGroupReads(registry: ProviderRegistry): ProviderRegistry {
  const resources = Object.fromEntries(
    RESOURCE_TYPES.map((type) => {
      const { groupRead: _unused, ...alone } = registry.resources[type];
      return [type, alone];
    }),
  );
  // One entry per registered kind: its own provider, without groupRead.
  return { ...registry, resources: resources as ProviderRegistry['resources'] };
}

const single = withoutGroupReads(providers);
const PLACES: ReadonlyArray<readonly [number, number]> = [
  [1, 76],
  [1, 77],
  [2, 76],
];
const TAG_KEYS = ['env', 'team', 'tier'] as const;
const TAG_VALUES = ['prod', 'staging'] as const;
const FLAVORS = ['g2-standard-2-4', 'g2-standard-4-8', 'g2-standard-8-16'] as const;
const VERSIONS = ['v1.28.9', 'v1.29.8', 'v1.30.6', 'v1.31.3'] as const;
const uuid = (kind: number, n: number) => `${String(kind).padStart(8, '0')}-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** One generated resource: whether and where it lives on the platform, and how the stack declares it. */
const place = fc.constantFrom(...PLACES);
const live = <T>(value: fc.Arbitrary<T>) => fc.option(value, { nil: undefined, freq: 4 });
const tags = fc.dictionary(fc.constantFrom(...TAG_KEYS), fc.constantFrom(...TAG_VALUES), { maxKeys: 3 });

const world = fc.record({
  pageSize: fc.integer({ min: 1, max: 4 }),
  fips: fc.array(fc.record({ live: live(fc.record({ place, tags, readOnly: fc.boolean(), locked: fc.boolean() })), place, tags: fc.option(tags, { nil: undefined }) }), {
    maxLength: 12,
  }),
  instances: fc.array(
    fc.record({
      live: live(fc.record({ place, flavor: fc.constantFrom(...FLAVORS), locked: fc.boolean() })),
      place,
      flavor: fc.constantFrom(...FLAVORS),
    }),
    { maxLength: 8 },
  ),
  clusters: fc.array(fc.record({ live: live(fc.record({ place, version: fc.constantFrom(...VERSIONS), locked: fc.boolean() })), place, version: fc.constantFrom(...VERSIONS) }), {
    maxLength: 6,
  }),
  settings: fc.array(
    fc.record({
      live: live(fc.record({ reseller: fc.constantFrom(7, 8), enabled: fc.boolean() })),
      reseller: fc.constantFrom(7, 8),
      enabled: fc.option(fc.boolean(), { nil: undefined }),
    }),
    { maxLength: 8 },
  ),
  quotas: fc.array(fc.record({ live: fc.boolean(), ensure: fc.constantFrom('present' as const, 'absent' as const) }), { maxLength: 6 }),
  apps: fc.array(fc.record({ live: fc.boolean(), ensure: fc.constantFrom('present' as const, 'absent' as const) }), { maxLength: 6 }),
  // Players page by 25 on the platform, whatever edgeform asks: a few worlds need more than a page.
  players: fc.record({
    extra: fc.integer({ min: 0, max: 55 }),
    declared: fc.array(fc.record({ live: fc.boolean(), ensure: fc.constantFrom('present' as const, 'absent' as const) }), { maxLength: 5 }),
  }),
});

type World = typeof world extends fc.Arbitrary<infer W> ? W : never;

/** The platform of a world (fixtures), the stack declaring it, and what to lock once the emulator runs. */
function build(w: World): { fixtures: EmulatorFixtures; blocks: ResourceBlock[]; locks: Array<{ method: string; path: string; body: unknown }> } {
  const blocks: ResourceBlock[] = [];
  const locks: Array<{ method: string; path: string; body: unknown }> = [];
  const fixtures = {
    k8s_versions: [...VERSIONS],
    floating_ips: [] as unknown[],
    instances: [] as unknown[],
    k8s_clusters: [] as unknown[],
    notification_settings: [] as unknown[],
    quota_requests: [] as unknown[],
    fastedge_apps: [] as unknown[],
    streaming_players: [] as unknown[],
  };
  w.fips.forEach((f, i) => {
    const id = uuid(1, i);
    if (f.live) {
      const [p, r] = f.live.place;
      fixtures.floating_ips.push({ id, project_id: p, region_id: r, tags: f.live.tags, read_only_tags: f.live.readOnly ? { 'managed-by': 'platform' } : {} });
      if (f.live.locked) locks.push({ method: 'PATCH', path: `/cloud/v2/floatingips/${p}/${r}/${id}`, body: { tags: { lock: 'me' } } });
    }
    const [p, r] = f.place;
    blocks.push(
      resource('cloud_floating_ip', `ip_${i}`, {
        project_id: p,
        region_id: r,
        floating_ip_id: id,
        tags_policy: 'authoritative',
        ensure: 'present',
        ...(f.tags ? { tags: f.tags } : {}),
      }),
    );
  });
  w.instances.forEach((v, i) => {
    const id = uuid(2, i);
    if (v.live) {
      const [p, r] = v.live.place;
      fixtures.instances.push({ id, project_id: p, region_id: r, name: `vm-${i}`, flavor_id: v.live.flavor, available_flavors: [...FLAVORS] });
      const other = FLAVORS.find((f) => f !== v.live!.flavor);
      if (v.live.locked) locks.push({ method: 'POST', path: `/cloud/v1/instances/${p}/${r}/${id}/changeflavor`, body: { flavor_id: other } });
    }
    const [p, r] = v.place;
    blocks.push(resource('cloud_instance', `vm_${i}`, { project_id: p, region_id: r, instance_id: id, flavor_id: v.flavor, ensure: 'present' }));
  });
  w.clusters.forEach((c, i) => {
    const name = `cluster-${i}`;
    if (c.live) {
      const [p, r] = c.live.place;
      fixtures.k8s_clusters.push({ name, project_id: p, region_id: r, version: c.live.version });
      const next = VERSIONS[VERSIONS.indexOf(c.live.version) + 1];
      if (c.live.locked && next) locks.push({ method: 'POST', path: `/cloud/v2/k8s/clusters/${p}/${r}/${name}/upgrade`, body: { version: next } });
    }
    const [p, r] = c.place;
    blocks.push(resource('cloud_k8s_cluster', `k8s_${i}`, { project_id: p, region_id: r, cluster_name: name, version: c.version, ensure: 'present' }));
  });
  w.settings.forEach((s, i) => {
    const id = 100 + i;
    if (s.live) fixtures.notification_settings.push({ id, reseller: s.live.reseller, notification_type: 'failed_login', email: 'ops@example.com', enabled: s.live.enabled });
    blocks.push(
      resource('iam_reseller_notification_setting', `setting_${i}`, {
        reseller_id: s.reseller,
        notification_settings_id: id,
        notification_type: 'failed_login',
        email: 'sec@example.com',
        ensure: 'present',
        ...(s.enabled === undefined ? {} : { enabled: s.enabled }),
      }),
    );
  });
  w.quotas.forEach((q, i) => {
    const id = 40 + i;
    if (q.live) fixtures.quota_requests.push({ id, status: 'done', description: `request ${i}` });
    blocks.push(resource('cloud_quota_limit_request', `quota_${i}`, { request_id: id, ensure: q.ensure }));
  });
  w.apps.forEach((a, i) => {
    const id = 1000 + i;
    if (a.live) fixtures.fastedge_apps.push({ id, name: `app-${i}` });
    blocks.push(resource('fastedge_app', `app_${i}`, { app_id: id, ensure: a.ensure }));
  });
  for (let n = 0; n < w.players.extra; n++) fixtures.streaming_players.push({ id: 500 + n, name: `other-${n}` });
  w.players.declared.forEach((pl, i) => {
    // Declared players live after the others, so reading them may take several pages.
    const id = 600 + i;
    if (pl.live) fixtures.streaming_players.push({ id, name: `player-${i}` });
    blocks.push(resource('streaming_player', `player_${i}`, { player_id: id, ensure: pl.ensure }));
  });
  return { fixtures: fixtures as unknown as EmulatorFixtures, blocks, locks };
}

/** The groups the grouped reads form: a kind and its group key (quota requests a hundred ids a list). */
function groupCount(blocks: readonly ResourceBlock[]): number {
  const keys = new Set(blocks.map((b) => `${b.type}/${providers.resources[b.type].groupRead?.key(b.attributes as never) ?? b.address}`));
  return keys.size;
}

let emu: TestEmulator | undefined;
closeAfterEach(() => [emu]);

describe('grouped reads (property)', () => {
  it('plans made with grouped reads equal plans made with single reads, over random worlds', async () => {
    await fc.assert(
      fc.asyncProperty(world, async (w) => {
        const { fixtures, blocks, locks } = build(w);
        await emu?.close();
        emu = await startTestEmulator({ fixtures, taskDurationMs: 60_000 });
        for (const lock of locks) expect((await emu.call(lock.method, lock.path, { body: lock.body })).status).toBe(200);
        // Each plan is a run of its own (its own client and context), as a user runs it: a run
        // may reuse what it read before (the flavors an instance offers), another run may not.
        const harnesses = [createProviderHarness(emu), createProviderHarness(emu)] as const;
        try {
          const stack = stackOf(blocks);
          const planWith = async (registry: ProviderRegistry, harness: ProviderHarness) => {
            const before = emu!.requests.length;
            const observations = await readStack(harness.ctx, stack, registry, { parallelism: 4, pageSize: w.pageSize });
            const plan = planOver(stack, observations);
            return { plan, requests: emu!.requests.length - before };
          };
          const grouped = await planWith(providers, harnesses[0]);
          const alone = await planWith(single, harnesses[1]);
          expect(canonicalJson(grouped.plan)).toBe(canonicalJson(alone.plan));
          expect(grouped.requests).toBeLessThanOrEqual(alone.requests + groupCount(blocks));
        } finally {
          for (const harness of harnesses) await harness.close();
        }
      }),
      { numRuns: 40 },
    );
  });
});
