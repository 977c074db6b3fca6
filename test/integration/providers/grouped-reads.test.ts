/**
 * Reads by group: the resources of one project and region (one reseller, one account) are read
 * through the platform's list endpoints, in as few requests as the lists allow.
 */
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiKeyRefusedError } from '../../../src/api/errors.js';
import { createApiClient, type ApiClient } from '../../../src/api/client.js';
import type { ResourceBlock } from '../../../src/config/types.js';
import type { EmulatorFixtures, EmulatorOptions } from '../../../src/emulator/index.js';
import { RunFatalError } from '../../../src/errors.js';
import { createProviderContext } from '../../../src/kinds/context.js';
import type { ProviderContext, ReadResult } from '../../../src/kinds/provider.js';
import { providers } from '../../../src/kinds/providers.js';
import { readStack, type ReadStackOptions } from '../../../src/kinds/read-stack.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { startLoopbackServer, type LoopbackServer, type SeenRequest } from '../../helpers/loopback-server.js';
import { createProviderHarness, type ProviderHarness } from '../../helpers/providers.js';
import { resource, stackOf } from '../../helpers/stack.js';
import { REF } from '../../helpers/ref.js';

const fipId = (n: number) => `00000001-0000-4000-8000-${String(n).padStart(12, '0')}`;
const FIP_LIST = '/cloud/v1/floatingips/{project_id}/{region_id}';
const FIP_ONE = '/cloud/v1/floatingips/{project_id}/{region_id}/{floating_ip_id}';

/** A world of `n` floating IPs in project 1, region 76, tagged env: staging. */
function floatingIps(n: number, more: Partial<EmulatorFixtures> = {}): EmulatorFixtures {
  return { floating_ips: Array.from({ length: n }, (_, i) => ({ id: fipId(i), tags: { env: 'staging' } })), ...more } as unknown as EmulatorFixtures;
}

/** Blocks declaring the floating IPs with these numbers, all wanting env: prod. */
function fipBlocks(numbers: readonly number[]): ResourceBlock[] {
  return numbers.map((n) =>
    resource('cloud_floating_ip', `ip_${n}`, { project_id: 1, region_id: 76, floating_ip_id: fipId(n), tags: { env: 'prod' }, tags_policy: 'merge', ensure: 'present' }),
  );
}

const range = (n: number, from = 0) => Array.from({ length: n }, (_, i) => from + i);

let emu: TestEmulator | undefined;
let harness: ProviderHarness | undefined;
const servers: LoopbackServer[] = [];
const clients: ApiClient[] = [];
afterEach(async () => {
  await harness?.close();
  await emu?.close();
  for (const c of clients.splice(0)) await c.close();
  for (const s of servers.splice(0)) await s.close();
  harness = undefined;
  emu = undefined;
});

async function start(options: EmulatorOptions): Promise<{ emu: TestEmulator; harness: ProviderHarness }> {
  emu = await startTestEmulator(options);
  harness = createProviderHarness(emu);
  return { emu, harness };
}

/** Requests the emulator saw, as `METHOD route` strings. */
const routes = (e: TestEmulator) => e.requests.map((r) => `${r.method} ${r.route}`);

/** Reads blocks with the real providers: the read results by address. */
async function read(ctx: ProviderContext, blocks: ResourceBlock[], options: Partial<ReadStackOptions> = {}): Promise<Map<string, ReadResult>> {
  return (await readStack(ctx, stackOf(blocks), providers, { parallelism: 16, ...options })).reads;
}

/** A context on a loopback server standing in for the platform, never waiting on the wall clock. */
function loopbackContext(server: LoopbackServer): ProviderContext {
  const api = createApiClient({ baseUrl: server.url, apiKey: 'test$key', sleep: async () => undefined, random: () => 0 });
  clients.push(api);
  return createProviderContext({ api, sleep: async () => undefined });
}

function json(res: ServerResponse, body: unknown, status = 200): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const fipAnswer = (id: string, more: Record<string, unknown> = {}) => ({ id, floating_ip_address: '203.0.113.1', status: 'DOWN', tags: [], task_id: null, ...more });

describe('grouped reads', () => {
  it('plans 1,000 floating IPs of one project and region with at most 10 requests (one list page)', async () => {
    const { emu, harness } = await start({ fixtures: floatingIps(1000) });
    const reads = await read(harness.ctx, fipBlocks(range(1000)));
    expect(emu.requests.length).toBeLessThanOrEqual(10);
    expect(routes(emu)).toEqual([`GET ${FIP_LIST}`]);
    expect(reads.size).toBe(1000);
    expect(reads.get('cloud_floating_ip.ip_999')).toEqual({
      ok: true,
      observation: {
        exists: true,
        state: { floating_ip_id: fipId(999), floating_ip_address: null, status: 'DOWN', tags: [{ key: 'env', value: 'staging', read_only: false }] },
        lockTaskId: null,
      },
    });
  });

  it('follows every page of the list, fetched together once the first page gave the count', async () => {
    const { emu, harness } = await start({ fixtures: floatingIps(10) });
    const reads = await read(harness.ctx, fipBlocks(range(10)), { pageSize: 3 });
    expect(routes(emu)).toEqual(Array(4).fill(`GET ${FIP_LIST}`));
    expect(harness.sent.map((r) => r.query)).toEqual(expect.arrayContaining([0, 3, 6, 9].map((offset) => ({ limit: 3, offset }))));
    expect([...reads.values()].every((r) => r.ok && r.observation.exists)).toBe(true);
  });

  it('runs only the list pages in the read pool: a listed member is projected at once, not as a job of its own', async () => {
    const { harness } = await start({ fixtures: floatingIps(10) });
    let jobs = 0;
    const ctx = { ...harness.ctx, pageSize: 3, schedule: <R>(work: () => Promise<R>) => (jobs++, work()) };
    const members = fipBlocks(range(10)).map((b) => b.attributes) as never[];
    const outcomes = await providers.resources.cloud_floating_ip.groupRead!.read(ctx, members);
    expect(outcomes.every((o) => o.ok && o.observation.exists)).toBe(true);
    // Four pages of three: four jobs, where one per member besides made fourteen.
    expect(jobs).toBe(4);
  });

  it('reads a resource missing from a complete list as {exists: false}, exactly as a 404 does', async () => {
    const { emu, harness } = await start({ fixtures: floatingIps(3) });
    const reads = await read(harness.ctx, fipBlocks([0, 1, 7]));
    expect(routes(emu)).toEqual([`GET ${FIP_LIST}`]);
    expect(reads.get('cloud_floating_ip.ip_7')).toEqual({ ok: true, observation: { exists: false } });
    const alone = await providers.resources.cloud_floating_ip.read(harness.ctx, fipBlocks([7])[0]!.attributes as never, REF);
    expect(alone).toEqual({ exists: false });
  });

  it('reads a group of one with a single GET', async () => {
    const { emu, harness } = await start({ fixtures: floatingIps(3) });
    await read(harness.ctx, fipBlocks([1]));
    expect(routes(emu)).toEqual([`GET ${FIP_ONE}`]);
  });

  it('reads the rest one by one when finishing the list would take more requests', async () => {
    // Two IPs on the last of three pages: two more pages or two GETs; the GETs are as cheap and smaller.
    const { emu, harness } = await start({ fixtures: floatingIps(3000) });
    const reads = await read(harness.ctx, fipBlocks([2998, 2999]));
    expect(routes(emu)).toEqual([`GET ${FIP_LIST}`, `GET ${FIP_ONE}`, `GET ${FIP_ONE}`]);
    expect(reads.get('cloud_floating_ip.ip_2999')).toMatchObject({ ok: true, observation: { exists: true } });
  });

  it('groups by project and region: one list for each', async () => {
    const fixtures = {
      floating_ips: [
        { id: fipId(0), project_id: 1, region_id: 76 },
        { id: fipId(1), project_id: 1, region_id: 76 },
        { id: fipId(2), project_id: 2, region_id: 76 },
        { id: fipId(3), project_id: 2, region_id: 76 },
      ],
    } as unknown as EmulatorFixtures;
    const { emu, harness } = await start({ fixtures });
    const blocks = [0, 1, 2, 3].map((n) =>
      resource('cloud_floating_ip', `ip_${n}`, { project_id: n < 2 ? 1 : 2, region_id: 76, floating_ip_id: fipId(n), tags_policy: 'merge', ensure: 'present' }),
    );
    const reads = await read(harness.ctx, blocks);
    expect(emu.requests.map((r) => r.path).sort()).toEqual(['/cloud/v1/floatingips/1/76', '/cloud/v1/floatingips/2/76']);
    expect([...reads.values()].every((r) => r.ok && r.observation.exists)).toBe(true);
  });

  it('brings the lock (task_id) through a list answer as through a single read', async () => {
    const { emu, harness } = await start({ fixtures: floatingIps(3), taskDurationMs: 60_000 });
    const task = (await emu.call('PATCH', `/cloud/v2/floatingips/1/76/${fipId(1)}`, { body: { tags: { env: 'prod' } } })).body.tasks[0];
    const reads = await read(harness.ctx, fipBlocks([0, 1, 2]));
    expect(reads.get('cloud_floating_ip.ip_1')).toMatchObject({ ok: true, observation: { exists: true, lockTaskId: task } });
    expect(reads.get('cloud_floating_ip.ip_0')).toMatchObject({ ok: true, observation: { exists: true, lockTaskId: null } });
    expect(await providers.resources.cloud_floating_ip.read(harness.ctx, fipBlocks([1])[0]!.attributes as never, REF)).toMatchObject({ lockTaskId: task });
  });

  describe('FastEdge apps found by name', () => {
    /** A world of 60 apps, app-0 … app-59, and blocks finding the first `n` of them by name. */
    const world = { fastedge_apps: range(60).map((n) => ({ id: 1000 + n, name: `app-${n}` })) } as unknown as EmulatorFixtures;
    const byName = (n: number) => range(n).map((i) => resource('fastedge_app', `app_${i}`, { name: `app-${i}`, ensure: 'present' }));

    it.each([2, 5, 50])('finds %i apps by name with one read of the app list: the requests do not grow with the apps', async (n) => {
      const { emu, harness } = await start({ fixtures: world });
      const reads = await read(harness.ctx, [...byName(n), resource('fastedge_app', 'fresh', { name: 'not-there-yet', binary: 1, ensure: 'present' })]);
      expect(routes(emu)).toEqual(['GET /fastedge/v1/apps']);
      expect(harness.sent[0]?.query).toEqual({ limit: 1000, offset: 0, ordering: 'id' });
      for (const i of range(n)) {
        expect(reads.get(`fastedge_app.app_${i}`)).toEqual({
          ok: true,
          observation: { exists: true, foundBy: `name "app-${i}"`, state: expect.objectContaining({ app_id: 1000 + i, name: `app-${i}` }) },
        });
      }
      expect(reads.get('fastedge_app.fresh')).toEqual({ ok: true, observation: { exists: false } });
    });

    it('reads the whole list, page after page, however few blocks are found by name (so a name not there is known absent)', async () => {
      const { emu, harness } = await start({ fixtures: world });
      const reads = await read(harness.ctx, [...byName(2), resource('fastedge_app', 'by_id', { app_id: 1001, ensure: 'present' })], { pageSize: 25 });
      expect(routes(emu)).toEqual(Array(3).fill('GET /fastedge/v1/apps'));
      expect([...reads.values()].every((r) => r.ok && r.observation.exists)).toBe(true);
    });

    it("is an error naming both ids when the list shows two apps with a block's name (names are unique on the platform, but the answer is not trusted)", async () => {
      const { emu, harness } = await start({ fixtures: world });
      emu.state.fastedgeApps.set(2000, { ...emu.state.fastedgeApps.get(1001)!, id: 2000 });
      const reads = await read(harness.ctx, byName(3));
      expect(reads.get('fastedge_app.app_1')).toEqual({ ok: false, error: { summary: expect.stringContaining('ids 1001, 2000') } });
      expect(reads.get('fastedge_app.app_2')).toMatchObject({ ok: true, observation: { exists: true } });
    });
  });

  it('reads the other grouped kinds with one list each', async () => {
    const fixtures = {
      instances: range(3).map((n) => ({ id: fipId(100 + n), name: `vm-${n}`, flavor_id: 'g2-standard-2-4', available_flavors: ['g2-standard-4-8'] })),
      k8s_versions: ['v1.29.8', 'v1.30.6'],
      k8s_clusters: range(3).map((n) => ({ name: `c-${n}`, version: 'v1.29.8' })),
      notification_settings: range(3).map((n) => ({ id: 10 + n, reseller: 7, notification_type: 'failed_login', email: 'ops@example.com' })),
      quota_requests: range(3).map((n) => ({ id: 40 + n, status: 'done' })),
      fastedge_apps: range(3).map((n) => ({ id: 1000 + n, name: `app-${n}` })),
      streaming_players: range(3).map((n) => ({ id: 60 + n, name: `player-${n}` })),
    } as unknown as EmulatorFixtures;
    const { emu, harness } = await start({ fixtures });
    const blocks: ResourceBlock[] = range(3).flatMap((n) => [
      // The first instance needs a resize: its projection reads the flavors on offer, as a single read does.
      resource('cloud_instance', `vm_${n}`, {
        project_id: 1,
        region_id: 76,
        instance_id: fipId(100 + n),
        flavor_id: n === 0 ? 'g2-standard-4-8' : 'g2-standard-2-4',
        ensure: 'present',
      }),
      resource('cloud_k8s_cluster', `k8s_${n}`, { project_id: 1, region_id: 76, cluster_name: `c-${n}`, version: 'v1.29.8', ensure: 'present' }),
      resource('iam_reseller_notification_setting', `s_${n}`, {
        reseller_id: 7,
        notification_settings_id: 10 + n,
        notification_type: 'failed_login',
        email: 'ops@example.com',
        ensure: 'present',
      }),
      resource('cloud_quota_limit_request', `q_${n}`, { request_id: 40 + n, ensure: 'absent' }),
      resource('fastedge_app', `app_${n}`, { app_id: 1000 + n, ensure: 'present' }),
      resource('streaming_player', `player_${n}`, { player_id: 60 + n, ensure: 'present' }),
    ]);
    const reads = await read(harness.ctx, blocks);
    expect(routes(emu).sort()).toEqual(
      [
        'GET /cloud/v1/instances/{project_id}/{region_id}',
        'GET /cloud/v1/instances/{project_id}/{region_id}/{instance_id}/available_flavors',
        'GET /cloud/v2/k8s/clusters/{project_id}/{region_id}',
        'GET /iam/reselling/resellers/{resellerId}/notification_settings',
        'GET /cloud/v2/limits_request',
        'GET /fastedge/v1/apps',
        // The first page held every declared player: no need to page on to the end.
        'GET /streaming/players',
      ].sort(),
    );
    expect(harness.sent.find((r) => r.path === '/cloud/v2/limits_request')?.query).toMatchObject({ request_ids: [40, 41, 42] });
    expect(reads.size).toBe(18);
    expect([...reads.values()].every((r) => r.ok && r.observation.exists)).toBe(true);
    expect(reads.get('cloud_instance.vm_0')).toMatchObject({ ok: true, observation: { state: { available_flavors: ['g2-standard-2-4', 'g2-standard-4-8'] } } });
  });

  it('attributes a failed list request to each resource of the group, as its own diagnostic', async () => {
    const { emu, harness } = await start({ fixtures: floatingIps(3) });
    emu.faults.failNext({ path: FIP_LIST, status: 403 });
    const reads = await read(harness.ctx, fipBlocks([0, 1]));
    for (const address of ['cloud_floating_ip.ip_0', 'cloud_floating_ip.ip_1']) {
      const result = reads.get(address);
      expect(result?.ok).toBe(false);
      expect(!result?.ok && result?.error.summary).toContain('GET /cloud/v1/floatingips/1/76');
    }
    expect(routes(emu)).toEqual([`GET ${FIP_LIST}`]);
  });

  it('stops the whole reading on a run-fatal error of a list request (the key refused)', async () => {
    const { emu } = await start({ fixtures: floatingIps(40) });
    const api = createApiClient({ baseUrl: emu.url, apiKey: 'wrong$key', sleep: async () => undefined, random: () => 0 });
    clients.push(api);
    const ctx = createProviderContext({ api });
    const blocks = [...fipBlocks(range(40)), resource('fastedge_app', 'app', { app_id: 1300, ensure: 'present' })];
    const error = await readStack(ctx, stackOf(blocks), providers, { parallelism: 1 }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(ApiKeyRefusedError);
    expect(error).toBeInstanceOf(RunFatalError);
    // The first request was refused; nothing queued behind it started.
    expect(emu.requests.length).toBe(1);
  });

  it('reads a group one by one when a list page does not fit its schema, so only the bad answer fails', async () => {
    const good = fipId(1);
    const bad = fipId(2);
    const server = await startLoopbackServer((req: SeenRequest, res) => {
      const path = req.url.split('?')[0];
      if (path === '/cloud/v1/floatingips/1/76') return json(res, { count: 2, results: [fipAnswer(good), fipAnswer(bad, { tags: 5 })] });
      if (path === `/cloud/v1/floatingips/1/76/${good}`) return json(res, fipAnswer(good));
      if (path === `/cloud/v1/floatingips/1/76/${bad}`) return json(res, fipAnswer(bad, { tags: 5 }));
      return json(res, { message: 'no' }, 404);
    });
    servers.push(server);
    const reads = await read(loopbackContext(server), fipBlocks([1, 2]));
    expect(server.requests.map((r) => r.url.split('?')[0]).sort()).toEqual(
      ['/cloud/v1/floatingips/1/76', `/cloud/v1/floatingips/1/76/${bad}`, `/cloud/v1/floatingips/1/76/${good}`].sort(),
    );
    expect(reads.get('cloud_floating_ip.ip_1')).toMatchObject({ ok: true, observation: { exists: true } });
    const failed = reads.get('cloud_floating_ip.ip_2');
    expect(failed?.ok).toBe(false);
    expect(!failed?.ok && failed?.error.summary).toContain(`GET /cloud/v1/floatingips/1/76/${bad}`);
    expect(!failed?.ok && failed?.error.summary).toContain('tags: expected array, got number 5');
  });

  it('reads the members one by one when the pages of a list disagree (the count changed while paging)', async () => {
    const server = await startLoopbackServer((req: SeenRequest, res) => {
      const url = new URL(req.url, 'http://x');
      if (url.pathname === '/cloud/v1/floatingips/1/76') {
        // Someone deleted an IP between the pages: the second page's count no longer matches the first.
        const offset = Number(url.searchParams.get('offset'));
        return json(res, offset === 0 ? { count: 4, results: [fipAnswer(fipId(0)), fipAnswer(fipId(1))] } : { count: 3, results: [fipAnswer(fipId(3))] });
      }
      const id = url.pathname.split('/').pop()!;
      return id === fipId(2) ? json(res, fipAnswer(id)) : json(res, { message: 'not found' }, 404);
    });
    servers.push(server);
    const reads = await read(loopbackContext(server), fipBlocks([0, 1, 2, 3, 4]), { pageSize: 2 });
    // Not on any page, but the list was not consistent: a GET each decides, not the list.
    expect(reads.get('cloud_floating_ip.ip_2')).toMatchObject({ ok: true, observation: { exists: true } });
    expect(reads.get('cloud_floating_ip.ip_4')).toEqual({ ok: true, observation: { exists: false } });
    expect(server.requests.filter((r) => r.url.startsWith(`/cloud/v1/floatingips/1/76/`)).map((r) => r.url.split('/').pop())).toEqual(expect.arrayContaining([fipId(2), fipId(4)]));
  });

  it('fails each resource with a clear error when a list never ends (EDGEFORM_PAGING)', async () => {
    // A player list that always has another full page, each holding one of the declared players.
    const server = await startLoopbackServer((req: SeenRequest, res) => {
      const page = Number(new URL(req.url, 'http://x').searchParams.get('page'));
      json(res, [
        { id: page, name: `declared-${page}` },
        { id: 10_000 + page, name: `other-${page}` },
      ]);
    });
    servers.push(server);
    const blocks = range(10, 1).map((n) => resource('streaming_player', `p_${n}`, { player_id: n, ensure: 'present' }));
    const reads = await read(loopbackContext(server), blocks, { maxPages: 3 });
    expect(server.requests).toHaveLength(3);
    for (const block of blocks) {
      const result = reads.get(block.address);
      expect(result?.ok).toBe(false);
      expect(!result?.ok && result?.error.summary).toBe('the list GET /streaming/players did not end after 3 pages; edgeform stopped following it');
    }
  });
});

describe('reading a stack with a high --parallelism', () => {
  it('warns of no listener leak when more than 10 requests share the run signal', async () => {
    // Forty IPs in forty regions: forty groups of one, sixteen GETs in flight at a time.
    const fixtures = { floating_ips: range(40).map((n) => ({ id: fipId(n), region_id: 100 + n })) } as unknown as EmulatorFixtures;
    const { emu, harness } = await start({ fixtures });
    const blocks = range(40).map((n) =>
      resource('cloud_floating_ip', `ip_${n}`, { project_id: 1, region_id: 100 + n, floating_ip_id: fipId(n), tags_policy: 'merge', ensure: 'present' }),
    );
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      await read(harness.ctx, blocks, { parallelism: 16 });
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(emu.requests).toHaveLength(40);
    expect(warnings.map((w) => w.name)).not.toContain('MaxListenersExceededWarning');
  });
});
