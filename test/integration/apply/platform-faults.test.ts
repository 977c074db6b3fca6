/**
 * Apply under platform faults, against the emulator: the run's retry quota carries a large
 * apply through transient 503 and 429 answers and still fails fast when the platform is down;
 * a change the platform acknowledged stands when only its confirming read fails; a refused key
 * or an unreachable platform stops the run with one error.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient, type ApiClientOptions, type ApiRequestOptions } from '../../../src/api/client.js';
import { ApiKeyRefusedError, PlatformUnavailableError } from '../../../src/api/errors.js';
import { createRetryQuota } from '../../../src/api/retry.js';
import { executePlan, type ApplyHooks, type ConfirmPolicy } from '../../../src/apply/executor.js';
import { countOutcome, succeeded, type ApplyOutcome, type RunError } from '../../../src/apply/outcome.js';
import type { EmulatorOptions } from '../../../src/emulator/index.js';
import { RunFatalError } from '../../../src/errors.js';
import type { Plan } from '../../../src/plan/types.js';
import { createProviderContext } from '../../../src/kinds/context.js';
import type { ProviderContext } from '../../../src/kinds/provider.js';
import { readStack } from '../../../src/kinds/read-stack.js';
import { providers } from '../../../src/kinds/providers.js';
import { extraFipBlocks, extraFipId, planYaml, withExtraFloatingIps, writesSeen } from '../../helpers/apply.js';
import { DEMO, startTestEmulator, type TestEmulator, closeAfterEach } from '../../helpers/emulator.js';
import { closedPort } from '../../helpers/loopback-server.js';
import { stackOf, resource } from '../../helpers/stack.js';

const HEADER = 'version: 1\ndefaults: { project_id: 1, region_id: 76 }\nresources:\n';
const WEB_IP = `  web_ip: { type: cloud_floating_ip, floating_ip_id: ${DEMO.fip}, tags: { env: prod, team: edge } }\n`;
const VM_AFTER_IP = `  web_vm: { type: cloud_instance, instance_id: ${DEMO.instance}, flavor_id: g2-standard-4-8, depends_on: [cloud_floating_ip.web_ip] }\n`;
const FIP_V1 = `/cloud/v1/floatingips/1/76/${DEMO.fip}`;
const INSTANCE = `/cloud/v1/instances/1/76/${DEMO.instance}`;

/** Confirmation re-reads that never wait on the wall clock. */
const quickConfirm: ConfirmPolicy = { attempts: 3, delayMs: () => 0, sleep: () => Promise.resolve() };

const clients: ApiClient[] = [];
let emu: TestEmulator | undefined;
closeAfterEach(() => [...clients.splice(0), emu]);

/**
 * A client and context that never wait on the wall clock: retry waits are only recorded, and
 * task polls and provider waits move the emulator's manual clock instead.
 */
function connect(baseUrl: string, apiKey: string, extra: Partial<ApiClientOptions> = {}): { api: ApiClient; ctx: ProviderContext; retryWaits: number[] } {
  const retryWaits: number[] = [];
  const api = createApiClient({ baseUrl, apiKey, sleep: async (ms) => void retryWaits.push(ms), random: () => 0, ...extra });
  clients.push(api);
  const ctx = createProviderContext({ api, pollSchedule: { initialMs: 500, maxMs: 500 }, sleep: async (ms) => void emu?.clock.advance(ms), now: () => emu?.clock.now() ?? 0 });
  return { api, ctx, retryWaits };
}

async function start(options: EmulatorOptions = {}): Promise<TestEmulator> {
  emu = await startTestEmulator({ taskDurationMs: 0, ...options });
  return emu;
}

const execute = (plan: Plan, ctx: ProviderContext, hooks: ApplyHooks = {}, maxTasks = 10): Promise<ApplyOutcome> =>
  executePlan({ plan, ctx, providers: providers.resources, maxTasks, confirm: quickConfirm, hooks });

const statuses = (outcome: ApplyOutcome) => Object.fromEntries(outcome.resources.map((r) => [r.address, r.status]));

describe('the run-wide retry quota', () => {
  /** 195 extra floating IPs to retag, plus a resize, an upgrade, two deletes and a settings PATCH. */
  const BIG_STACK =
    HEADER +
    extraFipBlocks(195) +
    `  web_vm: { type: cloud_instance, instance_id: ${DEMO.instance}, flavor_id: g2-standard-4-8 }\n` +
    '  cluster: { type: cloud_k8s_cluster, cluster_name: prod-eu, version: v1.30.6, depends_on: [cloud_instance.web_vm] }\n' +
    '  legacy_app: { type: fastedge_app, app_id: 1234, ensure: absent }\n' +
    '  old_player: { type: streaming_player, player_id: 55, ensure: absent }\n' +
    '  login_alerts: { type: iam_reseller_notification_setting, reseller_id: 7, notification_settings_id: 3, notification_type: failed_login, email: sec@example.com, enabled: true }\n';

  it('carries a 200-resource plan and apply through 10% 503 and 5% 429 answers: it scales with the work', async () => {
    // Seeded faults; 8 attempts per request make a request failing every attempt (0.15^8 each)
    // practically impossible, so what is under test is the run-wide quota, which a 200-resource
    // run needs far more than the 20 retries of the old run-wide budget from.
    const e = await start({ fixtures: withExtraFloatingIps(195), failRate: 0.1, rateLimitRate: 0.05, seed: 8 });
    const quota = createRetryQuota();
    let retries = 0;
    const { ctx } = connect(e.url, e.apiKey, { retryQuota: quota, retryPolicy: { maxAttempts: 8 }, onRetry: () => void (retries += 1) });

    const plan = await planYaml(ctx, e.url, BIG_STACK);
    expect(plan.resource_changes).toHaveLength(200);
    const outcome = await execute(plan, ctx);

    expect(outcome.resources.filter((r) => r.status !== 'applied').map((r) => `${r.address}: ${r.status} ${r.error ?? ''}`)).toEqual([]);
    expect(succeeded(outcome)).toBe(true);
    expect(countOutcome(outcome)).toMatchObject({ changed: 198, destroyed: 2, failed: 0 });
    expect(retries).toBeGreaterThan(20);
    expect(e.requests.filter((r) => r.status === 503 || r.status === 429).length).toBeGreaterThan(20);
    // Each retry that led to a success was refunded, so the quota ends nearly full.
    expect(quota.available).toBeGreaterThan(quota.capacity - 50);
    for (let n = 1; n <= 195; n++) expect(e.state.floatingIps.get(extraFipId(n))!.tags.find((t) => t.key === 'env')?.value).toBe('prod');
  });

  it('fails fast when the platform is really down: the quota runs out and the reading stops with one error', async () => {
    const e = await start({ fixtures: withExtraFloatingIps(195), failRate: 1 });
    const { ctx } = connect(e.url, e.apiKey, { retryQuota: createRetryQuota() });

    // Each IP in a region of its own: 195 groups of one, read with 195 GETs (one list would fail once).
    const spread = extraFipBlocks(195).replace(/ip_(\d+): \{ /g, 'ip_$1: { region_id: $1, ');
    const error = await planYaml(ctx, e.url, HEADER + spread).catch((err: unknown) => err);

    expect(error).toBeInstanceOf(PlatformUnavailableError);
    expect((error as Error).message).toMatch(new RegExp(`^the platform at ${e.url} is unavailable: GET /cloud/v1/floatingips/.*503 Service Unavailable.*retry quota is exhausted`));
    // 500 tokens pay for 100 retries; reads queued after that never start.
    expect(e.requests.length).toBeLessThan(195);
  });
});

describe('a change the platform acknowledged whose confirming read fails', () => {
  it('is applied with a warning (task FINISHED), and its dependant is applied', async () => {
    const e = await start();
    const { ctx } = connect(e.url, e.apiKey);
    const plan = await planYaml(ctx, e.url, HEADER + WEB_IP + VM_AFTER_IP);
    // Once the PATCH answered with its task, every read of the IP fails (all 6 attempts).
    const hooks: ApplyHooks = {
      onProgress(change, message) {
        if (change.address === 'cloud_floating_ip.web_ip' && message.startsWith('waiting on task')) e.faults.failNext({ method: 'GET', path: FIP_V1, status: 503, count: 6 });
      },
    };

    const outcome = await execute(plan, ctx, hooks);

    expect(statuses(outcome)).toEqual({ 'cloud_floating_ip.web_ip': 'applied', 'cloud_instance.web_vm': 'applied' });
    const ip = outcome.resources.find((r) => r.address === 'cloud_floating_ip.web_ip')!;
    expect(ip.error).toBeUndefined();
    expect(ip.warnings).toEqual([
      expect.stringMatching(
        /^the platform acknowledged the change, but the read that confirms it failed: GET \/cloud\/v1\/floatingips\/.*503 Service Unavailable.*gave up after 6 attempts\. Run edgeform plan to check it\.$/,
      ),
    ]);
    expect(outcome.resources.find((r) => r.address === 'cloud_instance.web_vm')!.warnings).toBeUndefined();
    expect(succeeded(outcome)).toBe(true);
    expect(writesSeen(e)).toEqual([`PATCH /cloud/v2/floatingips/1/76/${DEMO.fip}`, `POST ${INSTANCE}/changeflavor`]);
  });

  it('is applied with a warning after a DELETE answered 204 and after a settings PATCH answered 200', async () => {
    const e = await start();
    const { ctx } = connect(e.url, e.apiKey);
    const plan = await planYaml(
      ctx,
      e.url,
      HEADER +
        '  old_player: { type: streaming_player, player_id: 55, ensure: absent }\n' +
        '  login_alerts: { type: iam_reseller_notification_setting, reseller_id: 7, notification_settings_id: 3, notification_type: failed_login, email: sec@example.com, enabled: true }\n',
    );
    // Right after each write succeeded, the reads of that resource start failing.
    const failingReads: ProviderContext = {
      ...ctx,
      api: {
        ...ctx.api,
        async request<T>(options: ApiRequestOptions<T>) {
          const response = await ctx.api.request<T>(options);
          if (options.method !== 'GET') e.faults.failNext({ method: 'GET', path: options.path, status: 503, count: 6 });
          return response;
        },
      },
    };

    const outcome = await execute(plan, failingReads, {}, 1);

    expect(statuses(outcome)).toEqual({ 'streaming_player.old_player': 'applied', 'iam_reseller_notification_setting.login_alerts': 'applied' });
    for (const r of outcome.resources) expect(r.warnings).toEqual([expect.stringContaining('the platform acknowledged the change, but the read that confirms it failed')]);
    expect(e.state.players.has(55)).toBe(false);
    expect(e.state.notificationSettings.get(3)).toMatchObject({ email: 'sec@example.com', enabled: true });
  });

  it('still fails when the confirming read works but shows another result (inconsistent), and skips its dependant', async () => {
    const e = await start({ readLagMs: 60_000 });
    const { ctx } = connect(e.url, e.apiKey);
    const plan = await planYaml(
      ctx,
      e.url,
      HEADER +
        `  web_vm: { type: cloud_instance, instance_id: ${DEMO.instance}, flavor_id: g2-standard-4-8 }\n` +
        `  cluster: { type: cloud_k8s_cluster, cluster_name: prod-eu, version: v1.30.6, depends_on: [cloud_instance.web_vm] }\n`,
    );

    const outcome = await execute(plan, ctx);

    expect(statuses(outcome)).toEqual({ 'cloud_instance.web_vm': 'failed', 'cloud_k8s_cluster.cluster': 'skipped' });
    expect(outcome.resources[0]!.error).toContain('inconsistent result after apply');
    expect(outcome.resources[0]!.warnings).toBeUndefined();
  });

  it('fails when the platform never acknowledged it: a changeflavor whose answer was lost, a task found on the instance, and the read after it failing', async () => {
    const e = await start({ taskDurationMs: 2000 });
    const { ctx } = connect(e.url, e.apiKey);
    const plan = await planYaml(ctx, e.url, HEADER + `  web_vm: { type: cloud_instance, instance_id: ${DEMO.instance}, flavor_id: g2-standard-4-8 }\n`);
    e.faults.dropNext({ method: 'POST', path: `${INSTANCE}/changeflavor`, when: 'after' });
    const hooks: ApplyHooks = {
      onProgress(_change, message) {
        if (message.includes('waiting on the task found on the resource')) e.faults.failNext({ method: 'GET', path: INSTANCE, status: 503, count: 6 });
      },
    };

    const outcome = await execute(plan, ctx, hooks);

    expect(outcome.resources[0]).toMatchObject({ status: 'failed', error: expect.stringContaining('503 Service Unavailable') });
    expect(outcome.resources[0]!.warnings).toBeUndefined();
  });
});

describe('a run-fatal error during apply', () => {
  const FOUR = HEADER + extraFipBlocks(4);

  async function planFour(): Promise<{ e: TestEmulator; plan: Plan }> {
    const e = await start({ fixtures: withExtraFloatingIps(4) });
    const { ctx } = connect(e.url, e.apiKey);
    const plan = await planYaml(ctx, e.url, FOUR);
    e.requests.length = 0;
    return { e, plan };
  }

  it('a refused key stops the run with one error: no further action starts, the rest are not started', async () => {
    const { e, plan } = await planFour();
    const { ctx } = connect(e.url, 'wrong$key');
    const runErrors: RunError[] = [];

    const outcome = await execute(plan, ctx, { onRunError: (error) => void runErrors.push(error) }, 2);

    expect(Object.values(statuses(outcome))).toEqual(['not-started', 'not-started', 'not-started', 'not-started']);
    expect(outcome.resources.every((r) => r.error === undefined)).toBe(true);
    expect(runErrors).toEqual([
      {
        code: 'EDGEFORM_API_KEY_REFUSED',
        message: expect.stringMatching(new RegExp(`^the platform at ${e.url} refused the API key in EDGEFORM_API_KEY: GET /cloud/v1/floatingips/.*401 Unauthorized`)),
      },
    ]);
    expect(outcome.runError).toEqual(runErrors[0]);
    expect(succeeded(outcome)).toBe(false);
    // Only the two actions already running read (together: one list request); nothing was written.
    expect(e.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /cloud/v1/floatingips/1/76']);
    expect(writesSeen(e)).toEqual([]);
    expect(runErrors[0]!.message).not.toContain('wrong$key');
  });

  it('an unreachable platform (a closed loopback port) stops the run with one error', async () => {
    const { plan } = await planFour();
    const url = await closedPort();
    const { ctx } = connect(url, 'some$key');
    const runErrors: RunError[] = [];

    const outcome = await execute(plan, ctx, { onRunError: (error) => void runErrors.push(error) }, 1);

    expect(Object.values(statuses(outcome))).toEqual(['not-started', 'not-started', 'not-started', 'not-started']);
    expect(runErrors).toEqual([
      {
        code: 'EDGEFORM_PLATFORM_UNAVAILABLE',
        message: expect.stringMatching(new RegExp(`^the platform at ${url}/? is unavailable: GET .*ECONNREFUSED.*gave up after 4 attempts`)),
      },
    ]);
  });

  it('a change that was sent before the key was refused ends failed, the rest not started, with the run error once', async () => {
    const e = await start();
    const { ctx } = connect(e.url, e.apiKey);
    const plan = await planYaml(ctx, e.url, HEADER + WEB_IP + `  web_vm: { type: cloud_instance, instance_id: ${DEMO.instance}, flavor_id: g2-standard-4-8 }\n`);
    // The key is revoked while the IP's task runs: its polls are refused.
    const hooks: ApplyHooks = {
      onProgress(change, message) {
        if (change.address === 'cloud_floating_ip.web_ip' && message.startsWith('waiting on task'))
          e.faults.failNext({ method: 'GET', path: '/cloud/v1/tasks/{task_id}', status: 401, count: 1 });
      },
    };
    const runErrors: RunError[] = [];

    const outcome = await execute(plan, ctx, { ...hooks, onRunError: (error) => void runErrors.push(error) }, 1);

    expect(statuses(outcome)).toEqual({ 'cloud_floating_ip.web_ip': 'failed', 'cloud_instance.web_vm': 'not-started' });
    expect(outcome.resources[0]!.error).toContain('refused the API key');
    expect(runErrors.map((r) => r.code)).toEqual(['EDGEFORM_API_KEY_REFUSED']);
  });
});

describe('reading a stack when the platform refuses the run', () => {
  const blocks = Array.from({ length: 40 }, (_, i) =>
    resource('cloud_floating_ip', `ip_${i + 1}`, { project_id: 1, region_id: 76, floating_ip_id: extraFipId(i + 1), tags_policy: 'authoritative', ensure: 'present' }),
  );

  it('a refused key: the reading stops at once with one ApiKeyRefusedError, not one diagnostic per resource', async () => {
    const e = await start({ fixtures: withExtraFloatingIps(40) });
    const { ctx } = connect(e.url, 'wrong$key');

    const error = await readStack(ctx, stackOf(blocks), providers, { parallelism: 4 }).catch((err: unknown) => err);

    expect(error).toBeInstanceOf(ApiKeyRefusedError);
    expect(error).toBeInstanceOf(RunFatalError);
    expect((error as Error).message).not.toContain('wrong$key');
    // The reads in flight when the first was refused, and no more.
    expect(e.requests.length).toBeLessThanOrEqual(4);
  });

  it('an unreachable platform: one PlatformUnavailableError', async () => {
    const { ctx } = connect(await closedPort(), 'some$key');
    const error = await readStack(ctx, stackOf(blocks), providers, { parallelism: 4 }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(PlatformUnavailableError);
    expect((error as PlatformUnavailableError).code).toBe('EDGEFORM_PLATFORM_UNAVAILABLE');
  });
});
