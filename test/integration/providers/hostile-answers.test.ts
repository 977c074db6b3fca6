/**
 * Every answer a provider reads (and every task poll and task-starting write) against a fake
 * platform on loopback that answers 200 with the wrong shape: `{}`, `null`, `[]`, an empty body,
 * an HTML page, a field of the wrong type, a 50 MB object, and bodies over the size limit with
 * and without a Content-Length. Each must end in a named error (class, stable code, the request
 * and the field), never a TypeError, and an oversized answer must be refused unread.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient, DEFAULT_MAX_RESPONSE_BYTES, type ApiClient } from '../../../src/api/client.js';
import { ApiResponseTooLargeError, UnexpectedResponseError } from '../../../src/api/errors.js';
import { pollTask } from '../../../src/api/tasks.js';
import type { ResourceChange } from '../../../src/plan/types.js';
import { buildPlan } from '../../../src/plan/planner.js';
import { createProviderContext } from '../../../src/kinds/context.js';
import type { ProviderContext } from '../../../src/kinds/provider.js';
import { readStack } from '../../../src/kinds/read-stack.js';
import { providers } from '../../../src/kinds/providers.js';
import { HOSTILE_SHAPES, MiB, writeHostileAnswer, type HostileAnswer, type HugeOutcome } from '../../helpers/hostile-answers.js';
import { startLoopbackServer, type LoopbackServer } from '../../helpers/loopback-server.js';
import { checkBlock, resource, stackOf } from '../../helpers/stack.js';
import { REF } from '../../helpers/ref.js';

const KEY = '29841$c767b250c767b250c767b250c767b250';
const FIP = '726ecfcc-7fd0-4e30-a86e-7892524aa483';
const VM = 'a7e7e8d6-0b4c-4c2e-9d1e-2f0f0c7b9a11';
const TASK = '1f2e3d4c-5b6a-4789-8abc-0123456789ab';

const FIP_PATH = `/cloud/v1/floatingips/1/76/${FIP}`;
const VM_PATH = `/cloud/v1/instances/1/76/${VM}`;
const CLUSTER_PATH = '/cloud/v2/k8s/clusters/1/76/prod-eu';
const TASK_PATH = `/cloud/v1/tasks/${TASK}`;

/** Documented answers (vendor OpenAPI examples, trimmed), which every schema must accept. */
const VALID: Record<string, unknown> = {
  [FIP_PATH]: {
    id: FIP,
    created_at: '2026-01-01T00:00:00+0000',
    creator_task_id: null,
    fixed_ip_address: null,
    floating_ip_address: '203.0.113.10',
    port_id: null,
    project_id: 1,
    region: 'Luxembourg 1',
    region_id: 76,
    router_id: null,
    status: 'ACTIVE',
    tags: [
      { key: 'env', value: 'staging', read_only: false },
      { key: 'managed-by', value: 'platform', read_only: true },
    ],
    task_id: null,
    updated_at: '2026-01-01T00:00:00+0000',
  },
  [`/cloud/v2/floatingips/1/76/${FIP}`]: { tasks: [TASK] },
  [VM_PATH]: {
    id: VM,
    name: 'web-vm',
    status: 'ACTIVE',
    task_id: null,
    task_state: null,
    vm_state: 'active',
    flavor: { flavor_id: 'g2-standard-2-4', flavor_name: 'g2-standard-2-4', vcpus: 2, ram: 4096 },
  },
  [`${VM_PATH}/available_flavors`]: { count: 1, results: [{ flavor_id: 'g2-standard-4-8', flavor_name: 'g2-standard-4-8', vcpus: 4, ram: 8192, disabled: false }] },
  [`${VM_PATH}/changeflavor`]: { tasks: [TASK] },
  [CLUSTER_PATH]: { id: 'c1', name: 'prod-eu', version: 'v1.29.8', status: 'Provisioned', task_id: null, pools: [] },
  [`${CLUSTER_PATH}/upgrade_versions`]: { count: 1, results: [{ version: 'v1.30.6' }] },
  '/fastedge/v1/apps/1234': { id: 1234, name: 'legacy-app', status: 1, binary: 5, api_type: 'wasi-http', plan_id: 1 },
  '/streaming/players/55': { id: 55, name: 'old player', autoplay: false },
  '/cloud/v2/limits_request/42': {
    id: 42,
    client_id: 9,
    status: 'in progress',
    description: 'more vCPUs',
    requested_limits: {},
    created_at: '2026-01-01T00:00:00',
    updated_at: null,
  },
  '/iam/reselling/resellers/7/notification_settings/3': { id: 3, reseller: 7, notification_type: 'failed_login', email: 'sec@example.com', enabled: true },
  '/streaming/ai/tasks': { count: 1, next: null, previous: null, results: [{ task_id: TASK, status: 'FAILURE', task_name: 'transcription', progress: 100, task_data: {} }] },
  '/streaming/videos/9876/subtitles': [{ id: 1000, name: 'English', language: 'eng', vtt: 'WEBVTT' }],
  [TASK_PATH]: { id: TASK, state: 'FINISHED', task_type: 'update_floating_ip', user_id: 1, created_on: '2026-01-01T00:00:00Z', error: null },
};

const fipChange: ResourceChange<'cloud_floating_ip'> = {
  address: 'cloud_floating_ip.web_ip',
  type: 'cloud_floating_ip',
  name: 'web_ip',
  action: 'update',
  desired: { project_id: 1, region_id: 76, floating_ip_id: FIP, tags: { env: 'prod' }, tags_policy: 'authoritative', ensure: 'present' },
  payload: { tags_patch: { env: 'prod', 'managed-by': null } },
  depends_on: [],
  changes: [],
  before: {},
  after: {},
  fingerprint: 'x',
  warnings: [],
  notes: [],
  lock_task_id: null,
};

const vmChange: ResourceChange<'cloud_instance'> = {
  ...fipChange,
  address: 'cloud_instance.web_vm',
  type: 'cloud_instance',
  name: 'web_vm',
  desired: { project_id: 1, region_id: 76, instance_id: VM, flavor_id: 'g2-standard-4-8', ensure: 'present' },
  payload: { flavor_id: 'g2-standard-4-8' },
};

/**
 * One answer edgeform reads: the request it comes from, how to make edgeform read it, whether
 * it is a bare array, and a copy of the documented answer with one field of the wrong type.
 */
interface Target {
  what: string;
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  run: (ctx: ProviderContext) => Promise<unknown>;
  root: 'object' | 'array';
  wrong: { body: unknown; field: string };
}

const r = providers.resources;
const c = providers.checks;
const fipDesired = { project_id: 1, region_id: 76, floating_ip_id: FIP, tags: { env: 'prod' }, tags_policy: 'authoritative' as const, ensure: 'present' as const };
const vmDesired = { project_id: 1, region_id: 76, instance_id: VM, flavor_id: 'g2-standard-4-8', ensure: 'present' as const };
const clusterDesired = { project_id: 1, region_id: 76, cluster_name: 'prod-eu', version: 'v1.31.3', ensure: 'present' as const };
const variant = (path: string, mutate: (body: Record<string, unknown>) => void): unknown => {
  const copy = structuredClone(VALID[path]) as Record<string, unknown>;
  mutate(copy);
  return copy;
};

const TARGETS: Target[] = [
  {
    what: 'cloud_floating_ip read',
    method: 'GET',
    path: FIP_PATH,
    run: (ctx) => r.cloud_floating_ip.read(ctx, fipDesired, REF),
    root: 'object',
    wrong: { body: variant(FIP_PATH, (b) => ((b.tags as Array<Record<string, unknown>>)[1]!.key = 7)), field: 'tags.1.key' },
  },
  {
    what: 'cloud_instance read',
    method: 'GET',
    path: VM_PATH,
    run: (ctx) => r.cloud_instance.read(ctx, vmDesired, REF),
    root: 'object',
    wrong: { body: variant(VM_PATH, (b) => (b.flavor = 'g2-standard-2-4')), field: 'flavor' },
  },
  {
    what: 'cloud_instance read of the flavors it may be resized to',
    method: 'GET',
    path: `${VM_PATH}/available_flavors`,
    run: (ctx) => r.cloud_instance.read(ctx, vmDesired, REF),
    root: 'object',
    wrong: { body: variant(`${VM_PATH}/available_flavors`, (b) => ((b.results as Array<Record<string, unknown>>)[0]!.flavor_id = 48)), field: 'results.0.flavor_id' },
  },
  {
    what: 'cloud_k8s_cluster read',
    method: 'GET',
    path: CLUSTER_PATH,
    run: (ctx) => r.cloud_k8s_cluster.read(ctx, clusterDesired, REF),
    root: 'object',
    wrong: { body: variant(CLUSTER_PATH, (b) => (b.version = 1.29)), field: 'version' },
  },
  {
    what: 'cloud_k8s_cluster read of its upgrade versions',
    method: 'GET',
    path: `${CLUSTER_PATH}/upgrade_versions`,
    run: (ctx) => r.cloud_k8s_cluster.read(ctx, clusterDesired, REF),
    root: 'object',
    wrong: { body: { count: 1, results: [{ version: null }] }, field: 'results.0.version' },
  },
  {
    what: 'fastedge_app read',
    method: 'GET',
    path: '/fastedge/v1/apps/1234',
    run: (ctx) => r.fastedge_app.read(ctx, { app_id: 1234, ensure: 'absent' }, REF),
    root: 'object',
    wrong: { body: variant('/fastedge/v1/apps/1234', (b) => (b.status = 'enabled')), field: 'status' },
  },
  {
    what: 'streaming_player read',
    method: 'GET',
    path: '/streaming/players/55',
    run: (ctx) => r.streaming_player.read(ctx, { player_id: 55, ensure: 'absent' }, REF),
    root: 'object',
    wrong: { body: variant('/streaming/players/55', (b) => (b.name = { en: 'old player' })), field: 'name' },
  },
  {
    what: 'cloud_quota_limit_request read',
    method: 'GET',
    path: '/cloud/v2/limits_request/42',
    run: (ctx) => r.cloud_quota_limit_request.read(ctx, { request_id: 42, ensure: 'absent' }, REF),
    root: 'object',
    wrong: { body: variant('/cloud/v2/limits_request/42', (b) => (b.status = false)), field: 'status' },
  },
  {
    what: 'iam_reseller_notification_setting read',
    method: 'GET',
    path: '/iam/reselling/resellers/7/notification_settings/3',
    run: (ctx) =>
      r.iam_reseller_notification_setting.read(
        ctx,
        {
          reseller_id: 7,
          notification_settings_id: 3,
          notification_type: 'failed_login',
          email: 'sec@example.com',
          enabled: true,
          ensure: 'present',
        },
        REF,
      ),
    root: 'object',
    wrong: { body: variant('/iam/reselling/resellers/7/notification_settings/3', (b) => (b.enabled = 'yes')), field: 'enabled' },
  },
  {
    what: 'streaming_ai_tasks check',
    method: 'GET',
    path: '/streaming/ai/tasks',
    run: (ctx) => c.streaming_ai_tasks.evaluate(ctx, { where: { task_name: 'transcription', status: 'FAILURE' }, max_count: 0 }),
    root: 'object',
    wrong: { body: variant('/streaming/ai/tasks', (b) => ((b.results as Array<Record<string, unknown>>)[0]!.task_id = 7)), field: 'results.0.task_id' },
  },
  {
    what: 'streaming_video_subtitles check',
    method: 'GET',
    path: '/streaming/videos/9876/subtitles',
    run: (ctx) => c.streaming_video_subtitles.evaluate(ctx, { video_id: 9876, languages: ['eng'] }),
    root: 'array',
    wrong: { body: [{ id: 1000, name: 'English', language: ['eng'] }], field: '0.language' },
  },
  {
    what: 'task poll',
    method: 'GET',
    path: TASK_PATH,
    run: (ctx) => pollTask(ctx.api, TASK, { sleep: async () => undefined }),
    root: 'object',
    wrong: { body: variant(TASK_PATH, (b) => (b.state = 'DONE')), field: 'state' },
  },
  {
    what: 'cloud_floating_ip apply (the tags PATCH answer)',
    method: 'PATCH',
    path: `/cloud/v2/floatingips/1/76/${FIP}`,
    run: (ctx) => r.cloud_floating_ip.apply(ctx, fipChange),
    root: 'object',
    wrong: { body: { tasks: [42] }, field: 'tasks.0' },
  },
  {
    what: 'cloud_instance apply (the changeflavor answer)',
    method: 'POST',
    path: `${VM_PATH}/changeflavor`,
    run: (ctx) => r.cloud_instance.apply(ctx, vmChange),
    root: 'object',
    wrong: { body: { tasks: TASK }, field: 'tasks' },
  },
];

/** What the fake platform answers: the documented answer everywhere but on `hostile.path`. */
let hostile: { path: string; answer: HostileAnswer } | null = null;
/** How writing each `huge` answer ended, in order. */
let huge: Promise<HugeOutcome>[] = [];
let server: LoopbackServer;
const clients: ApiClient[] = [];

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    const path = req.url.split('?', 1)[0]!;
    if (hostile && path === hostile.path) {
      const written = writeHostileAnswer(res, hostile.answer);
      if (hostile.answer.kind === 'huge') huge.push(written);
      return;
    }
    const body = VALID[path];
    void writeHostileAnswer(res, body === undefined ? { kind: 'raw', contentType: 'application/json', text: '{"message":"not found"}' } : { kind: 'json', body });
  });
});
afterAll(() => server.close());
afterEach(async () => {
  hostile = null;
  huge = [];
  server.requests.length = 0;
  while (clients.length) await clients.pop()!.close();
});

function contextFor(maxResponseBytes?: number): ProviderContext {
  const api = createApiClient({ baseUrl: server.url, apiKey: KEY, sleep: async () => undefined, random: () => 0, ...(maxResponseBytes ? { maxResponseBytes } : {}) });
  clients.push(api);
  return createProviderContext({ api, sleep: async () => undefined, now: () => 0 });
}

/** Runs the target against `answer` and returns what it rejected with (failing if it resolved). */
async function failureOf(target: Target, answer: HostileAnswer, maxResponseBytes?: number): Promise<unknown> {
  hostile = { path: target.path, answer };
  const outcome = await target.run(contextFor(maxResponseBytes)).then(
    (value) => ({ resolved: value }),
    (error: unknown) => ({ error }),
  );
  if ('resolved' in outcome) throw new Error(`${target.what} accepted the answer: ${JSON.stringify(outcome.resolved)}`);
  // Refused at once: never retried, since the same request would get the same answer.
  expect(server.requests.filter((q) => q.url.split('?', 1)[0] === target.path)).toHaveLength(1);
  return outcome.error;
}

/**
 * The error is an UnexpectedResponseError (so never a TypeError) with its stable code, naming
 * the request and the field (`field` undefined: any one field, not the whole answer).
 */
function expectNamed(error: unknown, target: Target, field: string | undefined, code = 'EDGEFORM_UNEXPECTED_RESPONSE'): UnexpectedResponseError {
  expect(error).toBeInstanceOf(UnexpectedResponseError);
  const e = error as UnexpectedResponseError;
  expect(e).toMatchObject({ code, method: target.method, path: target.path, status: 200 });
  if (field === undefined) expect(e.field).toMatch(/^\w+$/);
  else expect(e.field).toBe(field);
  expect(e.message).toContain(`${target.method} ${target.path}: `);
  if (e.field !== '') expect(e.message).toContain(`${e.field}: expected ${e.expected}, got ${e.got}`);
  expect(e.message).not.toContain(KEY);
  return e;
}

describe.each(TARGETS)('$what', (target) => {
  it('accepts the documented answer', async () => {
    await target.run(contextFor());
  });

  it('refuses an empty object {} naming the first field it reads', async () => {
    const e = expectNamed(await failureOf(target, HOSTILE_SHAPES['an empty object {}']!), target, target.root === 'array' ? '' : undefined);
    if (target.root === 'array') expect(e).toMatchObject({ expected: 'array', got: 'object' });
    else expect(e.got).toBe('nothing (the field is missing)');
  });

  it('refuses null', async () => {
    expect(expectNamed(await failureOf(target, HOSTILE_SHAPES.null!), target, '')).toMatchObject({ expected: target.root, got: 'null' });
  });

  it('refuses an empty array [] where it reads an object', async () => {
    if (target.root === 'array') {
      hostile = { path: target.path, answer: HOSTILE_SHAPES['an empty array []']! };
      await expect(target.run(contextFor())).resolves.toBeDefined();
      return;
    }
    expect(expectNamed(await failureOf(target, HOSTILE_SHAPES['an empty array []']!), target, '')).toMatchObject({ expected: 'object', got: 'an empty array' });
  });

  it('refuses an empty body', async () => {
    expect(expectNamed(await failureOf(target, HOSTILE_SHAPES['an empty body']!), target, '')).toMatchObject({ expected: target.root, got: 'an empty body' });
  });

  it('refuses an HTML page answered 200 text/html', async () => {
    const e = expectNamed(await failureOf(target, HOSTILE_SHAPES['an HTML page (200 text/html)']!), target, '');
    expect(e).toMatchObject({ expected: target.root, got: 'a text/html answer, not JSON' });
    expect(e.message).not.toContain('<html>');
  });

  it('refuses a field of the wrong type, naming it', async () => {
    expectNamed(await failureOf(target, { kind: 'json', body: target.wrong.body }), target, target.wrong.field);
  });

  it('refuses a 50 MB object past the default limit without reading it all: the connection closes before it is written', async () => {
    const error = await failureOf(target, { kind: 'huge', bytes: 50 * MiB, declareLength: false });
    expectNamed(error, target, '', 'EDGEFORM_API_RESPONSE_TOO_LARGE');
    expect(error).toBeInstanceOf(ApiResponseTooLargeError);
    expect(error).toMatchObject({ limitBytes: DEFAULT_MAX_RESPONSE_BYTES, declaredBytes: null });
    expect(await Promise.all(huge)).toEqual(['closed-early']);
  });

  it('refuses a body over a configured limit as soon as it passes the limit (no Content-Length)', async () => {
    const error = await failureOf(target, { kind: 'huge', bytes: 32 * MiB, declareLength: false }, 64 * 1024);
    expect(error).toBeInstanceOf(ApiResponseTooLargeError);
    expect(error).toMatchObject({ code: 'EDGEFORM_API_RESPONSE_TOO_LARGE', limitBytes: 64 * 1024, declaredBytes: null, path: target.path });
    expect((error as Error).message).toContain('larger than the 64 KiB limit; edgeform stopped reading it');
    expect(await Promise.all(huge)).toEqual(['closed-early']);
  });

  it('refuses a Content-Length over the limit before reading the body', async () => {
    const error = await failureOf(target, { kind: 'huge', bytes: 32 * MiB, declareLength: true }, 64 * 1024);
    expect(error).toBeInstanceOf(ApiResponseTooLargeError);
    expect(error).toMatchObject({ code: 'EDGEFORM_API_RESPONSE_TOO_LARGE', declaredBytes: 32 * MiB, path: target.path });
    expect((error as Error).message).toContain(`declares ${32 * MiB} bytes, more than the 64 KiB limit; it was not read`);
    expect(await Promise.all(huge)).toEqual(['closed-early']);
  });
});

describe('what the user sees', () => {
  it("a plan's read diagnostic names the resource address, the request and the field", async () => {
    hostile = { path: FIP_PATH, answer: { kind: 'json', body: TARGETS[0]!.wrong.body } };
    const stack = stackOf(
      [resource('cloud_floating_ip', 'web_ip', fipDesired), resource('fastedge_app', 'legacy', { app_id: 1234, ensure: 'absent' })],
      [checkBlock('streaming_video_subtitles', 'subs', { video_id: 9876, languages: ['eng'] })],
    );
    const ctx = contextFor();
    const observed = await readStack(ctx, stack, providers, { parallelism: 4 });
    const plan = buildPlan({
      stack,
      reads: observed.reads,
      checks: observed.checks,
      planners: providers.resources,
      baseUrl: server.url,
      createdAt: '2026-01-01T00:00:00.000Z',
      edgeformVersion: '0.0.0-test',
    });
    expect(plan.errored).toBe(true);
    expect(plan.diagnostics.map((d) => [d.address, d.summary])).toEqual([
      ['cloud_floating_ip.web_ip', `reading cloud_floating_ip.web_ip failed: GET ${FIP_PATH}: unexpected 200 answer: tags.1.key: expected string, got number 7`],
    ]);
    // The rest of the stack is still planned.
    expect(plan.resource_changes.map((ch) => ch.address)).toEqual(['fastedge_app.legacy']);
  });
});
