/**
 * Blocks found by their identity (no platform id: FastEdge apps by name, floating IPs by their
 * ownership tags) are read through their group's list: one list per place, shared by every block
 * of the group, when the plan reads the stack and when apply reads them back (bindProvider's
 * read), never one request per block. Counted against the emulator; nothing here depends on time.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient } from '../../../src/api/client.js';
import type { Sleep } from '../../../src/api/sleep.js';
import { CONFIRM_POLICY, executePlan } from '../../../src/apply/executor.js';
import { loadStack } from '../../../src/config/load-stack.js';
import type { Stack } from '../../../src/config/types.js';
import { createProviderContext } from '../../../src/kinds/context.js';
import { bindProvider, type ProviderContext } from '../../../src/kinds/provider.js';
import { providers } from '../../../src/kinds/providers.js';
import { readStack } from '../../../src/kinds/read-stack.js';
import type { ResourceChange } from '../../../src/plan/types.js';
import { demoFixtures, planYaml } from '../../helpers/apply.js';
import { startTestEmulator, type TestEmulator, closeAfterEach } from '../../helpers/emulator.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

const STACK = 'prod';
const PLACES = [
  { project_id: 1, region_id: 76 },
  { project_id: 2, region_id: 77 },
] as const;
const FIP_LIST = '/cloud/v1/floatingips/{project_id}/{region_id}';
const APP_LIST = '/fastedge/v1/apps';
const fipId = (n: number) => `3c000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

let emu: TestEmulator | undefined;
let api: ApiClient | undefined;
closeAfterEach(() => [api, emu]);

/**
 * `perPlace` floating IPs without their id in each of the two places and `apps` apps found by
 * name, in stack "prod"; `converged`: the platform holds each as declared (its ownership tags, its
 * name), else none of them. `duplicate`: a second floating IP carrying ip_1's ownership tags.
 */
async function identityWorld(perPlace: number, apps: number, options: { converged: boolean; duplicate?: boolean }) {
  const fixtures = demoFixtures() as ReturnType<typeof demoFixtures> & { fastedge_apps: Record<string, unknown>[] };
  const blocks: string[] = [];
  let n = 0;
  for (const place of PLACES) {
    for (let i = 0; i < perPlace; i++) {
      n += 1;
      blocks.push(`  ip_${n}: { type: cloud_floating_ip, project_id: ${place.project_id}, region_id: ${place.region_id}, tags: { env: prod } }`);
      const tags = { env: 'prod', 'edgeform-stack': STACK, 'edgeform-address': `cloud_floating_ip.ip_${n}` };
      if (options.converged) fixtures.floating_ips.push({ id: fipId(n), ...place, status: 'ACTIVE', tags });
    }
  }
  if (options.duplicate)
    fixtures.floating_ips.push({ id: fipId(999), ...PLACES[0], status: 'ACTIVE', tags: { 'edgeform-stack': STACK, 'edgeform-address': 'cloud_floating_ip.ip_1' } });
  for (let i = 1; i <= apps; i++) {
    blocks.push(`  app_${i}: { type: fastedge_app, name: found-${i}, binary: 1 }`);
    if (options.converged) fixtures.fastedge_apps.push({ id: 9000 + i, name: `found-${i}`, binary: 1 });
  }
  const e = await startTestEmulator({ taskDurationMs: 2000, fixtures });
  emu = e;
  const advance: Sleep = async (ms) => void e.clock.advance(ms);
  api = createApiClient({ baseUrl: e.url, apiKey: e.apiKey, maxConcurrentRequests: 10 });
  const ctx = createProviderContext({ api, sleep: advance, now: () => e.clock.now() });
  const yaml = `version: 1\nname: ${STACK}\nresources:\n${blocks.join('\n')}\n`;
  return { emu: e, ctx, yaml, advance };
}

async function loadYaml(yaml: string): Promise<Stack> {
  const loaded = await loadStack(join(writeStackFiles({ 'stack.yaml': yaml }), 'stack.yaml'), {});
  if (!loaded.stack) throw new Error(loaded.diagnostics.map((d) => d.summary).join('; '));
  return loaded.stack;
}

/** GET requests of the two lists since `from`, by path (one path per place). */
function listsSince(e: TestEmulator, from: number): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of e.requests.slice(from)) if (r.method === 'GET' && (r.route === FIP_LIST || r.route === APP_LIST)) counts[r.path] = (counts[r.path] ?? 0) + 1;
  return counts;
}

const readAll = (ctx: ProviderContext, changes: readonly ResourceChange[]) => Promise.all(changes.map((c) => bindProvider(providers.resources, c, STACK).read(ctx)));

describe('blocks found by identity are read through their group list', () => {
  it('plans 20 floating IPs found by ownership tags in two places and 10 apps found by name with one list per place and one app list', async () => {
    const { emu, ctx, yaml } = await identityWorld(10, 10, { converged: true });
    const plan = await planYaml(ctx, emu.url, yaml);

    expect(plan.resource_changes.map((c) => c.action)).toEqual(Array(30).fill('no-op'));
    expect(plan.resource_changes.filter((c) => c.type === 'cloud_floating_ip').map((c) => c.before?.floating_ip_id)).toEqual(Array.from({ length: 20 }, (_, i) => fipId(i + 1)));
    expect(plan.resource_changes.filter((c) => c.type === 'fastedge_app').map((c) => c.before?.app_id)).toEqual(Array.from({ length: 10 }, (_, i) => 9001 + i));
    expect(listsSince(emu, 0)).toEqual({ '/cloud/v1/floatingips/1/76': 1, '/cloud/v1/floatingips/2/77': 1, [APP_LIST]: 1 });
    expect(emu.requests.map((r) => r.route).filter((route) => route !== FIP_LIST && route !== APP_LIST)).toEqual([]);
  });

  it('still fails a block whose ownership tags two floating IPs carry, naming both, while the others of its list are found', async () => {
    const { emu, ctx, yaml } = await identityWorld(3, 0, { converged: true, duplicate: true });
    const read = await readStack(ctx, await loadYaml(yaml), providers, { parallelism: 4 });

    const ip1 = read.reads.get('cloud_floating_ip.ip_1');
    expect(ip1?.ok).toBe(false);
    const summary = ip1?.ok === false ? ip1.error.summary : '';
    expect(summary).toContain(fipId(1));
    expect(summary).toContain(fipId(999));
    for (let n = 2; n <= 6; n++)
      expect(read.reads.get(`cloud_floating_ip.ip_${n}`)).toMatchObject({ ok: true, observation: { exists: true, state: { floating_ip_id: fipId(n) } } });
    expect(listsSince(emu, 0)).toEqual({ '/cloud/v1/floatingips/1/76': 1, '/cloud/v1/floatingips/2/77': 1 });
  });

  it('reads back blocks found by identity with one list per place and kind for the reads asked together, and one more for those asked while it ran', async () => {
    const { emu, ctx, yaml } = await identityWorld(5, 5, { converged: true });
    const plan = await planYaml(ctx, emu.url, yaml);
    const from = emu.requests.length;

    const first = await readAll(ctx, plan.resource_changes);
    expect(first.map((o) => o.exists && o.foundBy)).toEqual([...Array(10).fill('ownership tags of stack "prod"'), ...Array.from({ length: 5 }, (_, i) => `name "found-${i + 1}"`)]);
    expect(listsSince(emu, from)).toEqual({ '/cloud/v1/floatingips/1/76': 1, '/cloud/v1/floatingips/2/77': 1, [APP_LIST]: 1 });

    // One read first, the other nine of its place asked for while its list is under way: they wait and go together.
    const again = emu.requests.length;
    const inPlace = plan.resource_changes.filter((c) => c.type === 'cloud_floating_ip').slice(0, 5);
    const alone = readAll(ctx, inPlace.slice(0, 1));
    await new Promise((resolve) => setImmediate(resolve));
    const rest = readAll(ctx, inPlace.slice(1));
    expect([...(await alone), ...(await rest)].every((o) => o.exists)).toBe(true);
    expect(listsSince(emu, again)).toEqual({ '/cloud/v1/floatingips/1/76': 2 });
  });

  it('creates floating IPs found by ownership tags reading them before and after with a list per place and poll, never one per block', async () => {
    const { emu, ctx, yaml, advance } = await identityWorld(8, 0, { converged: false });
    const plan = await planYaml(ctx, emu.url, yaml);
    expect(plan.resource_changes.map((c) => c.action)).toEqual(Array(16).fill('create'));
    const from = emu.requests.length;

    const outcome = await executePlan({ plan, providers: providers.resources, ctx, maxTasks: 200, confirm: { ...CONFIRM_POLICY, sleep: advance } });

    expect(outcome.resources.map((r) => r.status)).toEqual(Array(16).fill('applied'));
    expect(new Set(outcome.resources.map((r) => r.id)).size).toBe(16);
    const since = emu.requests.slice(from);
    expect(
      since
        .filter((r) => r.method === 'POST')
        .map((r) => r.path)
        .sort(),
    ).toEqual([...Array(8).fill('/cloud/v1/floatingips/1/76'), ...Array(8).fill('/cloud/v1/floatingips/2/77')]);
    const polls = since.filter((r) => r.route.startsWith('/cloud/v1/tasks')).length;
    for (const place of ['/cloud/v1/floatingips/1/76', '/cloud/v1/floatingips/2/77']) {
      const lists = listsSince(emu, from)[place] ?? 0;
      // One list before acting (every action starts together), then at most one per poll that saw tasks end.
      expect(lists).toBeGreaterThanOrEqual(2);
      expect(lists).toBeLessThanOrEqual(1 + polls);
      expect(lists).toBeLessThan(8);
    }
  });

  it('finds players, subtitles, notification settings and quota requests by their natural keys with one reading of each group list', async () => {
    const e = await startTestEmulator({ fixtures: demoFixtures() });
    emu = e;
    api = createApiClient({ baseUrl: e.url, apiKey: e.apiKey });
    const ctx = createProviderContext({ api });
    const vtt = JSON.stringify('WEBVTT\n\n1\n00:00:01.000 --> 00:00:04.000\nHello.\n');
    const stack = await loadYaml(
      [
        'version: 1',
        'resources:',
        '  p1: { type: streaming_player, name: old-player }',
        '  p2: { type: streaming_player, name: main-player }',
        '  p3: { type: streaming_player, name: new-player }',
        `  s1: { type: streaming_video_subtitle, video_id: 9876, language: eng, vtt: ${vtt} }`,
        `  s2: { type: streaming_video_subtitle, video_id: 9876, language: ger, vtt: ${vtt} }`,
        `  s3: { type: streaming_video_subtitle, video_id: 9876, language: fre, vtt: ${vtt} }`,
        '  n1: { type: iam_reseller_notification_setting, reseller_id: 7, notification_type: failed_login, email: ops@example.com, enabled: true }',
        '  n2: { type: iam_reseller_notification_setting, reseller_id: 7, notification_type: deletion_request, email: billing@example.com, enabled: true }',
        '  n3: { type: iam_reseller_notification_setting, reseller_id: 7, notification_type: failed_login, email: new@example.com, enabled: true }',
        '  q1: { type: cloud_quota_limit_request, description: More vCPUs for the staging project, requested_limits: { regional_limits: [{ region_id: 76, cpu_count_limit: 64 }] } }',
        '  q2: { type: cloud_quota_limit_request, description: Extra floating IPs, requested_limits: { regional_limits: [{ region_id: 76, floating_count_limit: 20 }] } }',
        '  q3: { type: cloud_quota_limit_request, description: Something new, requested_limits: { regional_limits: [{ region_id: 76, floating_count_limit: 5 }] } }',
        '',
      ].join('\n'),
    );
    const read = await readStack(ctx, stack, providers, { parallelism: 4 });

    const found = (address: string, field: string) => {
      const r = read.reads.get(address);
      return r?.ok && r.observation.exists ? r.observation.state[field] : r?.ok ? 'absent' : 'failed';
    };
    expect([found('streaming_player.p1', 'player_id'), found('streaming_player.p2', 'player_id'), found('streaming_player.p3', 'player_id')]).toEqual([55, 60, 'absent']);
    expect(['s1', 's2', 's3'].map((n) => found(`streaming_video_subtitle.${n}`, 'subtitle_id'))).toEqual([1000, 1001, 'absent']);
    expect(['n1', 'n2', 'n3'].map((n) => found(`iam_reseller_notification_setting.${n}`, 'notification_settings_id'))).toEqual([3, 4, 'absent']);
    expect(['q1', 'q2', 'q3'].map((n) => found(`cloud_quota_limit_request.${n}`, 'request_id'))).toEqual([42, 43, 'absent']);
    // The player list pages until an empty page: its two pages once, not once per block.
    expect(e.requests.countByRoute()).toEqual({
      'GET /streaming/players': 2,
      'GET /streaming/videos/{video_id}/subtitles': 1,
      'GET /iam/reselling/resellers/{resellerId}/notification_settings': 1,
      'GET /cloud/v2/limits_request': 1,
    });
  });
});
