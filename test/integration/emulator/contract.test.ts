/**
 * Contract tests: every answer of the emulator validates against the response schema of the
 * same operation in the vendor's OpenAPI files, and sample requests the vendor schema rejects
 * are rejected by the emulator too. The relaxations applied to the vendor schemas are listed in
 * test/helpers/openapi.ts.
 */
import { describe, expect, it } from 'vitest';
import { DEMO, type TestEmulator, useTestEmulator } from '../../helpers/emulator.js';
import { componentValidator, expectValid, queryChecker, queryParameterValidator, requestValidator, responseValidator, expectDocumentedAnswer } from '../../helpers/openapi.js';

const CLOUD = 'cloud_api.yaml';
const FASTEDGE = 'fastedge_api.yaml';
const STREAMING = 'streaming_api.yaml';
const IAM = 'iam_reseller_api.yaml';

const P = {
  fip: '/cloud/v1/floatingips/{project_id}/{region_id}/{floating_ip_id}',
  fipList: '/cloud/v1/floatingips/{project_id}/{region_id}',
  fipV2: '/cloud/v2/floatingips/{project_id}/{region_id}/{floating_ip_id}',
  instances: '/cloud/v1/instances/{project_id}/{region_id}',
  instance: '/cloud/v1/instances/{project_id}/{region_id}/{instance_id}',
  flavors: '/cloud/v1/instances/{project_id}/{region_id}/{instance_id}/available_flavors',
  resize: '/cloud/v1/instances/{project_id}/{region_id}/{instance_id}/changeflavor',
  clusters: '/cloud/v2/k8s/clusters/{project_id}/{region_id}',
  cluster: '/cloud/v2/k8s/clusters/{project_id}/{region_id}/{cluster_name}',
  upgradeVersions: '/cloud/v2/k8s/clusters/{project_id}/{region_id}/{cluster_name}/upgrade_versions',
  upgrade: '/cloud/v2/k8s/clusters/{project_id}/{region_id}/{cluster_name}/upgrade',
  task: '/cloud/v1/tasks/{task_id}',
  tasks: '/cloud/v1/tasks',
  quotas: '/cloud/v2/limits_request',
  quota: '/cloud/v2/limits_request/{request_id}',
  projects: '/cloud/v1/projects',
  regions: '/cloud/v1/regions',
  clientQuotas: '/cloud/v2/client_quotas',
  apps: '/fastedge/v1/apps',
  app: '/fastedge/v1/apps/{app_id}',
  players: '/streaming/players',
  player: '/streaming/players/{player_id}',
  videos: '/streaming/videos',
  subtitles: '/streaming/videos/{video_id}/subtitles',
  aiTasks: '/streaming/ai/tasks',
  settings: '/iam/reselling/resellers/{resellerId}/notification_settings',
  setting: '/iam/reselling/resellers/{resellerId}/notification_settings/{notificationSettingsId}',
};

const fip = `/cloud/v1/floatingips/1/76/${DEMO.fip}`;
const fipV2 = `/cloud/v2/floatingips/1/76/${DEMO.fip}`;
const vm = `/cloud/v1/instances/1/76/${DEMO.instance}`;
const cluster = '/cloud/v2/k8s/clusters/1/76/prod-eu';
const setting = '/iam/reselling/resellers/7/notification_settings/3';

describe('emulator contract with the vendor OpenAPI (responses)', () => {
  let emu: TestEmulator;
  useTestEmulator((started) => (emu = started), { taskDurationMs: 1000 });

  const expectResponse = (file: string, method: string, template: string, path: string, status: number, body?: unknown) =>
    expectDocumentedAnswer(emu, file, method, template, path, status, body);

  it('GET floating IP matches FloatingIPSerializer', () => expectResponse(CLOUD, 'GET', P.fip, fip, 200));
  it('GET floating IP list matches FloatingIPDetailedCollectionSerializer (with an instance)', () => expectResponse(CLOUD, 'GET', P.fipList, '/cloud/v1/floatingips/1/76', 200));
  it('PATCH v2 floating IP matches TaskIDsSerializer', () => expectResponse(CLOUD, 'PATCH', P.fipV2, fipV2, 200, { tags: { env: 'prod' } }));
  it('PATCH v2 floating IP without change matches TaskIDsSerializer', () => expectResponse(CLOUD, 'PATCH', P.fipV2, fipV2, 200, { tags: { env: 'staging' } }));
  it('deprecated PATCH v1 floating IP matches FloatingIPSerializer', () => expectResponse(CLOUD, 'PATCH', P.fip, fip, 200, { tags: { env: 'prod' } }));

  it('a locked floating IP still matches FloatingIPSerializer', async () => {
    await emu.call('PATCH', fipV2, { body: { tags: null } });
    const body = await expectResponse(CLOUD, 'GET', P.fip, fip, 200);
    expect(body.task_id).not.toBeNull();
  });

  it('GET instance matches InstanceSerializer', () => expectResponse(CLOUD, 'GET', P.instance, vm, 200));
  it('GET instance list matches InstanceCollectionSerializer', async () => {
    expect((await expectResponse(CLOUD, 'GET', P.instances, '/cloud/v1/instances/1/76', 200)).count).toBe(1);
  });
  it('GET available_flavors matches InstanceFlavorExtendedCollectionSerializer', () => expectResponse(CLOUD, 'GET', P.flavors, `${vm}/available_flavors`, 200));
  it('GET available_flavors with prices matches too', () => expectResponse(CLOUD, 'GET', P.flavors, `${vm}/available_flavors?include_prices=true`, 200));
  it('POST changeflavor matches TaskIDsSerializer', () => expectResponse(CLOUD, 'POST', P.resize, `${vm}/changeflavor`, 200, { flavor_id: 'g2-standard-4-8' }));

  it('a resizing instance matches InstanceSerializer', async () => {
    await emu.call('POST', `${vm}/changeflavor`, { body: { flavor_id: 'g2-standard-4-8' } });
    expect((await expectResponse(CLOUD, 'GET', P.instance, vm, 200)).status).toBe('RESIZE');
  });

  it('GET cluster matches K8sClusterV2Serializer', () => expectResponse(CLOUD, 'GET', P.cluster, cluster, 200));
  it('GET cluster list matches K8sClusterV2CollectionSerializer', () => expectResponse(CLOUD, 'GET', P.clusters, '/cloud/v2/k8s/clusters/1/76', 200));
  it('GET upgrade_versions matches K8sClusterVersionV2CollectionSerializer', () => expectResponse(CLOUD, 'GET', P.upgradeVersions, `${cluster}/upgrade_versions`, 200));
  it('POST upgrade matches TaskIDsSerializer', () => expectResponse(CLOUD, 'POST', P.upgrade, `${cluster}/upgrade`, 200, { version: 'v1.30.6' }));

  it('GET task matches TaskSerializer in every state', async () => {
    emu.state.setNextTaskError('instance', DEMO.instance, 'Quota limit for vcpu exceeded');
    const failing = (await emu.call('POST', `${vm}/changeflavor`, { body: { flavor_id: 'g2-standard-4-8' } })).body.tasks[0];
    const upgrade = (await emu.call('POST', `${cluster}/upgrade`, { body: { version: 'v1.30.6' } })).body.tasks[0];
    expect((await expectResponse(CLOUD, 'GET', P.task, `/cloud/v1/tasks/${upgrade}`, 200)).state).toBe('NEW');
    emu.clock.advance(1);
    expect((await expectResponse(CLOUD, 'GET', P.task, `/cloud/v1/tasks/${upgrade}`, 200)).state).toBe('RUNNING');
    emu.clock.advance(1000);
    expect((await expectResponse(CLOUD, 'GET', P.task, `/cloud/v1/tasks/${upgrade}`, 200)).state).toBe('FINISHED');
    expect((await expectResponse(CLOUD, 'GET', P.task, `/cloud/v1/tasks/${failing}`, 200)).state).toBe('ERROR');
  });

  it('GET task list matches TaskCollectionSerializer, with tasks in every state and under each filter', async () => {
    emu.state.setNextTaskError('instance', DEMO.instance, 'Quota limit for vcpu exceeded');
    await emu.call('POST', `${vm}/changeflavor`, { body: { flavor_id: 'g2-standard-4-8' } });
    await emu.call('PATCH', `/cloud/v2/floatingips/1/76/${DEMO.fipDown}`, { body: { tags: { env: 'staging' } } });
    emu.clock.advance(500);
    await emu.call('POST', `${cluster}/upgrade`, { body: { version: 'v1.30.6' } });
    emu.clock.advance(600);
    await emu.call('PATCH', fipV2, { body: { tags: { env: 'prod' } } });
    const all = await expectResponse(CLOUD, 'GET', P.tasks, '/cloud/v1/tasks?limit=100', 200);
    expect(all.results.map((t: { state: string }) => t.state).sort()).toEqual(['ERROR', 'FINISHED', 'NEW', 'RUNNING']);
    for (const query of [
      '',
      '?project_id=1&region_id=76&state=RUNNING&state=FINISHED&order_by=asc&limit=1000',
      '?from_timestamp=2026-01-01T00:00:00Z&offset=1&limit=2',
      '?task_type=resize_vm',
    ]) {
      await expectResponse(CLOUD, 'GET', P.tasks, `/cloud/v1/tasks${query}`, 200);
    }
  });

  it('GET quota request list matches LimitsRequestCollectionSerializer', () => expectResponse(CLOUD, 'GET', P.quotas, P.quotas, 200));
  it('GET quota request matches LimitsRequestSerializer', () => expectResponse(CLOUD, 'GET', P.quota, '/cloud/v2/limits_request/43', 200));
  it('GET project list matches ListProjectsSerializer', () => expectResponse(CLOUD, 'GET', P.projects, P.projects, 200));
  it('GET region list matches RegionCollectionSerializer', () => expectResponse(CLOUD, 'GET', P.regions, P.regions, 200));
  it('GET region list with volume types matches RegionCollectionSerializer', () => expectResponse(CLOUD, 'GET', P.regions, `${P.regions}?show_volume_types=true`, 200));
  it('GET client quotas matches AllClientQuotasSerializer', () => expectResponse(CLOUD, 'GET', P.clientQuotas, P.clientQuotas, 200));

  it('GET cluster list shows security_group_ids on each pool (a list of ids, as the vendor SDK models require)', async () => {
    const body = await expectResponse(CLOUD, 'GET', P.clusters, '/cloud/v2/k8s/clusters/1/76', 200);
    for (const pool of body.results[0].pools) expect(pool.security_group_ids).toEqual(expect.arrayContaining([expect.stringMatching(/^[0-9a-f-]{36}$/)]));
  });

  it('GET AI tasks shows processing_time on each task matching the vendor ai_results.processing_time', async () => {
    const body = await expectResponse(STREAMING, 'GET', P.aiTasks, P.aiTasks, 200);
    const validate = componentValidator(STREAMING, 'ai_results/properties/processing_time');
    for (const task of body.results) expectValid(validate, task.processing_time);
  });

  it('POST quota request answers 201 and its body matches LimitsRequestSerializer (the vendor documents no body)', async () => {
    const res = await emu.call('POST', P.quotas, { body: { description: 'x', requested_limits: { regional_limits: [{ region_id: 76, cpu_count_limit: 8 }] } } });
    expect(res.status).toBe(201);
    expectValid(componentValidator(CLOUD, 'LimitsRequestSerializer'), res.body);
  });

  it('DELETE quota request answers 204 as documented', async () => {
    expect((await emu.call('DELETE', '/cloud/v2/limits_request/42')).status).toBe(204);
  });

  it('cloud error bodies match NotFoundErrorSchema', async () => {
    const res = await emu.call('GET', '/cloud/v1/tasks/00000000-0000-4000-8000-000000000000');
    expectValid(componentValidator(CLOUD, 'NotFoundErrorSchema'), res.body);
  });

  it('GET FastEdge apps matches the listApps response', () => expectResponse(FASTEDGE, 'GET', P.apps, P.apps, 200));
  it('GET FastEdge app matches app', () => expectResponse(FASTEDGE, 'GET', P.app, '/fastedge/v1/apps/1300', 200));
  it('DELETE FastEdge app with a malformed id matches error (400)', () => expectResponse(FASTEDGE, 'DELETE', P.app, '/fastedge/v1/apps/x', 400));

  it('DELETE FastEdge app 503 is a text/plain string', async () => {
    emu.faults.failNext({ path: P.app, status: 503 });
    const res = await emu.call('DELETE', '/fastedge/v1/apps/1234');
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expectValid(responseValidator(FASTEDGE, 'DELETE', P.app, 503, 'text/plain'), res.text);
  });

  it('GET players matches a player array', () => expectResponse(STREAMING, 'GET', P.players, P.players, 200));
  it('GET player matches player', () => expectResponse(STREAMING, 'GET', P.player, '/streaming/players/60', 200));
  it('GET videos matches a searchVideo array', () => expectResponse(STREAMING, 'GET', P.videos, P.videos, 200));
  it('GET subtitles matches a subtitle array', () => expectResponse(STREAMING, 'GET', P.subtitles, '/streaming/videos/9876/subtitles', 200));
  it('GET subtitles 400 matches badrequest', () => expectResponse(STREAMING, 'GET', P.subtitles, '/streaming/videos/x/subtitles', 400));
  it('GET subtitles 404 matches notfound', () => expectResponse(STREAMING, 'GET', P.subtitles, '/streaming/videos/1/subtitles', 404));
  it('GET AI tasks matches ai_tasks_list (first page)', () => expectResponse(STREAMING, 'GET', P.aiTasks, P.aiTasks, 200));
  it('GET AI tasks matches ai_tasks_list (last page, next null)', () => expectResponse(STREAMING, 'GET', P.aiTasks, `${P.aiTasks}?page=2`, 200));
  it("GET AI tasks past the last page answers an empty ai_tasks_list (200), which the vendor SDK's auto-paging asks for", async () => {
    const body = await expectResponse(STREAMING, 'GET', P.aiTasks, `${P.aiTasks}?page=3`, 200);
    expect(body).toEqual({ count: 15, next: null, previous: 'page=2', results: [] });
  });
  it('GET AI tasks 422 matches upgraderequired', () => expectResponse(STREAMING, 'GET', P.aiTasks, `${P.aiTasks}?status=DONE`, 422));

  it('GET notification settings matches NotificationSettingsPaginatedArray', () =>
    expectResponse(IAM, 'GET', P.settings, '/iam/reselling/resellers/7/notification_settings?limit=1', 200));
  it('GET notification setting matches NotificationSettingsRead', () => expectResponse(IAM, 'GET', P.setting, setting, 200));
  it('PATCH notification setting matches NotificationSettingsRead', () =>
    expectResponse(IAM, 'PATCH', P.setting, setting, 200, { notification_type: 'failed_login', email: 'sec@example.com', enabled: true }));

  it('PATCH notification setting 400 matches iam_reseller_ValidationError', async () => {
    const res = await emu.call('PATCH', setting, { body: { notification_type: 'nope', email: 'x' } });
    expect(res.status).toBe(400);
    expectValid(componentValidator(IAM, 'iam_reseller_ValidationError'), res.body);
    expect(res.body.errors).toBeDefined();
  });

  it('PATCH notification setting with malformed JSON matches JSONParseError', async () => {
    const res = await emu.call('PATCH', setting, { rawBody: '{', headers: { 'Content-Type': 'application/json' } });
    expect(res.status).toBe(400);
    expectValid(componentValidator(IAM, 'JSONParseError'), res.body);
  });
});

describe('emulator contract with the vendor OpenAPI (list endpoints and their paging)', () => {
  let emu: TestEmulator;
  useTestEmulator((started) => (emu = started), { taskDurationMs: 1000, resetEach: false });

  /** A list endpoint, read page after page: every page matches the vendor schema and together they hold the whole list once. */
  const lists: Array<{ name: string; file: string; template: string; path: string; pages: string[]; items: (body: any) => any[]; total: number }> = [
    {
      name: 'floating IPs (limit/offset)',
      file: CLOUD,
      template: P.fipList,
      path: '/cloud/v1/floatingips/1/76',
      pages: ['?limit=1', '?limit=1&offset=1', '?limit=1&offset=2'],
      items: (b) => b.results,
      total: 2,
    },
    {
      name: 'instances (limit/offset)',
      file: CLOUD,
      template: P.instances,
      path: '/cloud/v1/instances/1/76',
      pages: ['?limit=1', '?limit=1&offset=1'],
      items: (b) => b.results,
      total: 1,
    },
    { name: 'Kubernetes clusters (one answer)', file: CLOUD, template: P.clusters, path: '/cloud/v2/k8s/clusters/1/76', pages: [''], items: (b) => b.results, total: 1 },
    {
      name: 'quota requests (request_ids, limit/offset)',
      file: CLOUD,
      template: P.quotas,
      path: P.quotas,
      pages: ['?request_ids=42&request_ids=43&limit=1', '?request_ids=42&request_ids=43&limit=1&offset=1'],
      items: (b) => b.results,
      total: 2,
    },
    {
      name: 'FastEdge apps (limit/offset)',
      file: FASTEDGE,
      template: P.apps,
      path: P.apps,
      pages: ['?limit=1&ordering=id', '?limit=1&offset=1&ordering=id'],
      items: (b) => b.apps,
      total: 2,
    },
    { name: 'streaming players (page)', file: STREAMING, template: P.players, path: P.players, pages: ['?page=1', '?page=2'], items: (b) => b, total: 2 },
    {
      name: 'streaming videos (page, per_page)',
      file: STREAMING,
      template: P.videos,
      path: P.videos,
      pages: ['?page=1&per_page=1', '?page=2&per_page=1', '?page=3&per_page=1'],
      items: (b) => b,
      total: 2,
    },
    {
      name: 'notification settings (limit/offset)',
      file: IAM,
      template: P.settings,
      path: '/iam/reselling/resellers/7/notification_settings',
      pages: ['?limit=1&ordering=id', '?limit=1&offset=1&ordering=id', '?limit=1&offset=2&ordering=id'],
      items: (b) => b.results,
      total: 2,
    },
    { name: 'projects (limit/offset)', file: CLOUD, template: P.projects, path: P.projects, pages: ['?limit=1', '?limit=1&offset=1'], items: (b) => b.results, total: 1 },
    { name: 'regions (limit/offset)', file: CLOUD, template: P.regions, path: P.regions, pages: ['?limit=1', '?limit=1&offset=1'], items: (b) => b.results, total: 1 },
    { name: 'AI tasks (page)', file: STREAMING, template: P.aiTasks, path: P.aiTasks, pages: ['?limit=10&page=1', '?limit=10&page=2'], items: (b) => b.results, total: 15 },
  ];

  it.each(lists)('$name: every page matches the vendor schema, and the pages hold the list once', async ({ file, template, path, pages, items, total }) => {
    const validate = responseValidator(file, 'GET', template, 200);
    const ids: unknown[] = [];
    for (const page of pages) {
      const res = await emu.call('GET', `${path}${page}`);
      expect(res.status).toBe(200);
      expectValid(validate, res.body);
      for (const item of items(res.body)) ids.push(item.id ?? item.task_id);
      if (!Array.isArray(res.body) && 'count' in res.body) expect(res.body.count).toBe(total);
    }
    expect(ids).toHaveLength(total);
    expect(new Set(ids).size).toBe(total);
  });

  /** Query parameters of the list endpoints: what the vendor schema refuses the emulator refuses (400), what it accepts is served. */
  const params: Array<{ file: string; template: string; path: string; name: string; value: number | string; valid: boolean }> = [
    ...[P.fipList, P.instances].flatMap((template) => {
      const path = template === P.fipList ? '/cloud/v1/floatingips/1/76' : '/cloud/v1/instances/1/76';
      return [
        { file: CLOUD, template, path, name: 'limit', value: 0, valid: false },
        { file: CLOUD, template, path, name: 'limit', value: 1001, valid: false },
        { file: CLOUD, template, path, name: 'limit', value: 1000, valid: true },
        { file: CLOUD, template, path, name: 'offset', value: -1, valid: false },
        { file: CLOUD, template, path, name: 'offset', value: 5, valid: true },
        { file: CLOUD, template, path, name: 'status', value: 'DELETED', valid: false },
        { file: CLOUD, template, path, name: 'status', value: 'ACTIVE', valid: true },
      ];
    }),
    { file: CLOUD, template: P.instances, path: '/cloud/v1/instances/1/76', name: 'order_by', value: 'name.asc', valid: true },
    { file: CLOUD, template: P.instances, path: '/cloud/v1/instances/1/76', name: 'order_by', value: 'id.asc', valid: false },
    { file: CLOUD, template: P.quotas, path: P.quotas, name: 'limit', value: 0, valid: false },
    { file: CLOUD, template: P.quotas, path: P.quotas, name: 'limit', value: 1000, valid: true },
    { file: CLOUD, template: P.quotas, path: P.quotas, name: 'status', value: 'open', valid: false },
    ...[P.projects, P.regions].flatMap((template) => [
      { file: CLOUD, template, path: template, name: 'limit', value: 0, valid: false },
      { file: CLOUD, template, path: template, name: 'limit', value: 1001, valid: false },
      { file: CLOUD, template, path: template, name: 'limit', value: 1000, valid: true },
      { file: CLOUD, template, path: template, name: 'offset', value: -1, valid: false },
      { file: CLOUD, template, path: template, name: 'order_by', value: 'created_at.asc', valid: true },
      { file: CLOUD, template, path: template, name: 'order_by', value: 'id.asc', valid: false },
    ]),
    { file: CLOUD, template: P.regions, path: P.regions, name: 'product', value: 'inference', valid: true },
    { file: CLOUD, template: P.regions, path: P.regions, name: 'product', value: 'gpu', valid: false },
    { file: FASTEDGE, template: P.apps, path: P.apps, name: 'limit', value: 0, valid: false },
    { file: FASTEDGE, template: P.apps, path: P.apps, name: 'limit', value: 1001, valid: false },
    { file: FASTEDGE, template: P.apps, path: P.apps, name: 'limit', value: 1000, valid: true },
    { file: FASTEDGE, template: P.apps, path: P.apps, name: 'ordering', value: 'date', valid: false },
    { file: STREAMING, template: P.videos, path: P.videos, name: 'page', value: 2, valid: true },
    { file: STREAMING, template: P.videos, path: P.videos, name: 'per_page', value: 100, valid: true },
    { file: STREAMING, template: P.videos, path: P.videos, name: 'per_page', value: 'many', valid: false },
  ];

  it.each(params)('$template?$name=$value is valid: $valid', async ({ file, template, path, name, value, valid }) => {
    const validate = queryParameterValidator(file, 'GET', template, name);
    // The vendor's array parameters (quota status) take the value as one item.
    const typed = name === 'status' && template === P.quotas ? [value] : value;
    expect(validate(typed)).toBe(valid);
    const res = await emu.call('GET', `${path}?${name}=${encodeURIComponent(String(value))}`);
    expect(res.status).toBe(valid ? 200 : 400);
  });
});

describe('emulator contract with the vendor OpenAPI (requests)', () => {
  let emu: TestEmulator;
  useTestEmulator((started) => (emu = started), { taskDurationMs: 1000 });

  const cases: Array<{ name: string; file: string; method: string; template: string; path: string; body: unknown }> = [
    { name: 'notification setting with a bad e-mail', file: IAM, method: 'PATCH', template: P.setting, path: setting, body: { notification_type: 'failed_login', email: 'nope' } },
    {
      name: 'notification setting with an e-mail over 254 characters',
      file: IAM,
      method: 'PATCH',
      template: P.setting,
      path: setting,
      body: { notification_type: 'failed_login', email: `${'a'.repeat(60)}@${'b'.repeat(200)}.com` },
    },
    {
      name: 'notification setting with a bad notification_type',
      file: IAM,
      method: 'PATCH',
      template: P.setting,
      path: setting,
      body: { notification_type: 'login', email: 'a@example.com' },
    },
    { name: 'notification setting without email', file: IAM, method: 'PATCH', template: P.setting, path: setting, body: { notification_type: 'failed_login' } },
    {
      name: 'notification setting with a string enabled',
      file: IAM,
      method: 'PATCH',
      template: P.setting,
      path: setting,
      body: { notification_type: 'failed_login', email: 'a@example.com', enabled: 'yes' },
    },
    { name: 'changeflavor without flavor_id', file: CLOUD, method: 'POST', template: P.resize, path: `${vm}/changeflavor`, body: {} },
    { name: 'changeflavor with a numeric flavor_id', file: CLOUD, method: 'POST', template: P.resize, path: `${vm}/changeflavor`, body: { flavor_id: 4 } },
    { name: 'upgrade without version', file: CLOUD, method: 'POST', template: P.upgrade, path: `${cluster}/upgrade`, body: {} },
    { name: 'tags with an empty value', file: CLOUD, method: 'PATCH', template: P.fipV2, path: fipV2, body: { tags: { env: '' } } },
    { name: 'tags with a tab in a value', file: CLOUD, method: 'PATCH', template: P.fipV2, path: fipV2, body: { tags: { env: 'a\tb' } } },
    { name: 'tags with a numeric value', file: CLOUD, method: 'PATCH', template: P.fipV2, path: fipV2, body: { tags: { env: 1 } } },
    { name: 'tags with a 256-character key', file: CLOUD, method: 'PATCH', template: P.fipV2, path: fipV2, body: { tags: { ['k'.repeat(256)]: 'v' } } },
    { name: 'tags as a list', file: CLOUD, method: 'PATCH', template: P.fipV2, path: fipV2, body: { tags: ['env'] } },
    { name: 'deprecated v1 tags with an empty value', file: CLOUD, method: 'PATCH', template: P.fip, path: fip, body: { tags: { env: '' } } },
    { name: 'port_id that is not a UUID', file: CLOUD, method: 'PATCH', template: P.fipV2, path: fipV2, body: { port_id: 'port-1' } },
    { name: 'quota request without description', file: CLOUD, method: 'POST', template: P.quotas, path: P.quotas, body: { requested_limits: {} } },
    {
      name: 'quota request with an unknown global limit',
      file: CLOUD,
      method: 'POST',
      template: P.quotas,
      path: P.quotas,
      body: { description: 'x', requested_limits: { global_limits: { vm_count_limit: 1 } } },
    },
    {
      name: 'quota request with a non-integer limit',
      file: CLOUD,
      method: 'POST',
      template: P.quotas,
      path: P.quotas,
      body: { description: 'x', requested_limits: { regional_limits: [{ region_id: 76, cpu_count_limit: 'many' }] } },
    },
  ];

  it.each(cases)('rejects what the vendor schema rejects: $name', async ({ file, method, template, path, body }) => {
    expect(requestValidator(file, method, template)(body)).toBe(false);
    const res = await emu.call(method, path, { body });
    expect(res.status).toBe(400);
  });

  const valid: Array<{ name: string; file: string; method: string; template: string; path: string; body: unknown }> = [
    { name: 'notification setting', file: IAM, method: 'PATCH', template: P.setting, path: setting, body: { notification_type: 'deletion_request', email: 'a.b+c@example.co.uk' } },
    { name: 'changeflavor', file: CLOUD, method: 'POST', template: P.resize, path: `${vm}/changeflavor`, body: { flavor_id: 'g2-standard-8-16' } },
    { name: 'tags merge patch', file: CLOUD, method: 'PATCH', template: P.fipV2, path: fipV2, body: { tags: { env: 'prod', owner: null, 'new-tag': 'a b' } } },
    { name: 'tags: null', file: CLOUD, method: 'PATCH', template: P.fipV2, path: fipV2, body: { tags: null } },
    { name: 'upgrade', file: CLOUD, method: 'POST', template: P.upgrade, path: `${cluster}/upgrade`, body: { version: 'v1.30.6' } },
    {
      name: 'quota request',
      file: CLOUD,
      method: 'POST',
      template: P.quotas,
      path: P.quotas,
      body: { description: 'x', requested_limits: { global_limits: { keypair_count_limit: 3 } } },
    },
  ];

  it.each(valid)('accepts what the vendor schema accepts: $name', async ({ file, method, template, path, body }) => {
    expectValid(requestValidator(file, method, template), body);
    const res = await emu.call(method, path, { body });
    expect(res.status).toBeLessThan(300);
  });

  const taskQueries = {
    invalid: ['state=DONE', 'limit=0', 'limit=1001', 'offset=-1', 'order_by=newest', 'project_id=x', 'is_acknowledged=maybe', 'from_timestamp=yesterday'],
    valid: [
      'project_id=1&project_id=2&region_id=76&state=NEW&state=RUNNING',
      'from_timestamp=2026-01-01T00:00:00Z&order_by=asc&limit=1000&offset=0',
      'sorting=desc&task_type=resize_vm&is_acknowledged=false',
    ],
  };

  it.each(taskQueries.invalid)('rejects a task list query the vendor schema rejects: %s', async (query) => {
    expect(queryChecker(CLOUD, 'GET', P.tasks)(new URLSearchParams(query))).not.toEqual([]);
    expect((await emu.call('GET', `${P.tasks}?${query}`)).status).toBe(400);
  });

  it.each(taskQueries.valid)('accepts a task list query the vendor schema accepts: %s', async (query) => {
    expect(queryChecker(CLOUD, 'GET', P.tasks)(new URLSearchParams(query))).toEqual([]);
    expect((await emu.call('GET', `${P.tasks}?${query}`)).status).toBe(200);
  });

  it('rejects tag keys outside the documented key pattern ^[^\\s=]+$ (the schema lists it as patternProperties, which alone does not forbid other keys)', async () => {
    for (const key of ['a=b', 'a b']) expect((await emu.call('PATCH', fipV2, { body: { tags: { [key]: 'x' } } })).status).toBe(400);
  });
});
