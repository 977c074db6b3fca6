import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator, useTestEmulator } from '../../helpers/emulator.js';

const ids = (body: { results: Array<{ id: number }> }) => body.results.map((r) => r.id);

describe('emulator projects and regions (demo world)', () => {
  let emu: TestEmulator;
  useTestEmulator((started) => (emu = started));

  it("lists the world's project as the default project when the fixtures name none", async () => {
    const res = await emu.call('GET', '/cloud/v1/projects');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ count: 1, results: [{ id: 1, name: 'default', is_default: true, state: 'ACTIVE', deleted_at: null, task_id: null }] });
  });

  it("lists the world's region when the fixtures name none", async () => {
    const res = await emu.call('GET', '/cloud/v1/regions');
    expect(res.body).toMatchObject({ count: 1, results: [{ id: 76, display_name: 'Luxembourg 1', state: 'ACTIVE', has_k8s: true, available_volume_types: null }] });
  });

  it('answers 401 without the API key', async () => {
    expect((await emu.call('GET', '/cloud/v1/projects', { auth: null })).status).toBe(401);
  });
});

describe('emulator projects and regions (fixtures)', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator({
      fixtures: {
        projects: [
          { id: 1, name: 'default', is_default: true, created_at: '2025-01-01T00:00:00Z' },
          { id: 2, name: 'staging', created_at: '2025-02-01T00:00:00Z' },
          { id: 3, name: 'gone', created_at: '2025-03-01T00:00:00Z', deleted_at: '2025-04-01T00:00:00Z' },
        ],
        regions: [
          { id: 76, display_name: 'Luxembourg 1', created_at: '2025-01-01T00:00:00Z' },
          { id: 8, display_name: 'Frankfurt', country: 'DE', created_at: '2025-02-01T00:00:00Z', has_k8s: false },
          { id: 9, display_name: 'Old', state: 'INACTIVE', created_at: '2025-03-01T00:00:00Z' },
        ],
      },
    });
  });
  afterAll(() => emu.close());

  it('lists projects newest first, without deleted ones unless include_deleted=true', async () => {
    expect(ids((await emu.call('GET', '/cloud/v1/projects')).body)).toEqual([2, 1]);
    expect(ids((await emu.call('GET', '/cloud/v1/projects?include_deleted=true')).body)).toEqual([3, 2, 1]);
    expect(ids((await emu.call('GET', '/cloud/v1/projects?order_by=name.asc')).body)).toEqual([1, 2]);
    expect(ids((await emu.call('GET', '/cloud/v1/projects?name=staging')).body)).toEqual([2]);
  });

  it('pages projects and regions with limit and offset (default limit 100)', async () => {
    expect((await emu.call('GET', '/cloud/v1/projects?limit=1&offset=1&order_by=created_at.asc')).body).toMatchObject({ count: 2, results: [{ id: 2 }] });
    expect((await emu.call('GET', '/cloud/v1/regions?limit=2&order_by=created_at.asc')).body).toMatchObject({ count: 3, results: [{ id: 76 }, { id: 8 }] });
  });

  it('lists regions with their state, k8s capability and country; display_name filters in any case', async () => {
    const res = await emu.call('GET', '/cloud/v1/regions?order_by=created_at.asc');
    expect(res.body.results.map((r: { id: number; state: string; has_k8s: boolean; country: string }) => [r.id, r.state, r.has_k8s, r.country])).toEqual([
      [76, 'ACTIVE', true, 'LU'],
      [8, 'ACTIVE', false, 'DE'],
      [9, 'INACTIVE', true, 'LU'],
    ]);
    expect(ids((await emu.call('GET', '/cloud/v1/regions?display_name=frankfurt')).body)).toEqual([8]);
  });

  it('answers 400 for a bad limit, offset, order or product', async () => {
    for (const query of ['limit=0', 'limit=1001', 'offset=-1', 'order_by=id.asc', 'product=gpu']) {
      expect((await emu.call('GET', `/cloud/v1/regions?${query}`)).status, query).toBe(400);
    }
    expect((await emu.call('GET', '/cloud/v1/projects?include_deleted=maybe')).status).toBe(400);
  });
});

describe('emulator projects and regions: every place its world holds resources in', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator({
      fixtures: {
        regions: [{ id: 8, display_name: 'Frankfurt', has_k8s: false, created_at: '2025-02-01T00:00:00Z' }],
        floating_ips: [
          { id: '00000000-0000-4000-8000-000000000001', project_id: 2, region_id: 77 },
          { id: '00000000-0000-4000-8000-000000000002', project_id: 3, region_id: 8 },
        ],
        instances: [{ id: '00000000-0000-4000-8000-000000000003', project_id: 4, region_id: 78, name: 'vm', flavor_id: 'g2-standard-2-4' }],
        k8s_clusters: [{ name: 'c', project_id: 5, region_id: 79, version: 'v1.31.3', status: 'Provisioned' }],
        k8s_versions: ['v1.31.3'],
      },
    });
  });
  afterAll(() => emu.close());

  it('lists the projects and regions its resources are in besides those the fixtures name (or the world default, when they name none)', async () => {
    expect(ids((await emu.call('GET', '/cloud/v1/projects?order_by=created_at.asc')).body).sort()).toEqual([1, 2, 3, 4, 5]);
    const regions = (await emu.call('GET', '/cloud/v1/regions?order_by=created_at.asc')).body;
    expect(ids(regions).sort((a, b) => a - b)).toEqual([8, 77, 78, 79]);
    // A region the fixtures name keeps its settings.
    expect(regions.results.find((r: { id: number }) => r.id === 8)).toMatchObject({ display_name: 'Frankfurt', has_k8s: false, state: 'ACTIVE' });
    expect(regions.results.find((r: { id: number }) => r.id === 77)).toMatchObject({ state: 'ACTIVE', has_k8s: true });
  });
});

describe('emulator client quotas (GET /cloud/v2/client_quotas)', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator({
      fixtures: {
        floating_ips: [
          { id: '00000000-0000-4000-8000-000000000001', project_id: 1, region_id: 76 },
          { id: '00000000-0000-4000-8000-000000000002', project_id: 2, region_id: 76 },
        ],
        instances: [{ id: '00000000-0000-4000-8000-000000000003', project_id: 1, region_id: 77, name: 'vm', flavor_id: 'g2-standard-2-4' }],
      },
    });
  });
  afterAll(() => emu.close());

  it("counts each region's cloud resources of every project in its usage, and the account's SSH keys and projects in the global one", async () => {
    const res = await emu.call('GET', '/cloud/v2/client_quotas');
    expect(res.status).toBe(200);
    const byRegion = new Map((res.body.regional_quotas as Array<Record<string, number>>).map((q) => [q.region_id, q]));
    expect([...byRegion.keys()]).toEqual([76, 77]);
    expect(byRegion.get(76)).toMatchObject({ floating_count_usage: 2, vm_count_usage: 0, cluster_count_usage: 0, network_count_usage: 0, volume_count_usage: 0 });
    expect(byRegion.get(77)).toMatchObject({ floating_count_usage: 0, vm_count_usage: 1 });
    expect(byRegion.get(76)!.floating_count_limit).toBeGreaterThanOrEqual(2);
    expect(res.body.global_quotas).toMatchObject({ keypair_count_usage: 0, project_count_usage: 2 });
  });
});
