import { describe, expect, it } from 'vitest';
import { type TestEmulator, useTestEmulator } from '../../helpers/emulator.js';
import { upgradeVersions } from '../../../src/emulator/services/k8s/routes.js';

const ONE = '/cloud/v2/k8s/clusters/1/76/prod-eu';

describe('emulator Kubernetes clusters', () => {
  let emu: TestEmulator;
  useTestEmulator((started) => (emu = started), { taskDurationMs: 3000 });

  it('GET by name answers version, status and a null task_id', async () => {
    const res = await emu.call('GET', ONE);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'prod-eu', version: 'v1.29.8', status: 'Provisioned', task_id: null });
  });

  it('GET answers 404 NotFoundError for an unknown name', async () => {
    const res = await emu.call('GET', '/cloud/v2/k8s/clusters/1/76/nope');
    expect(res.status).toBe(404);
    expect(res.body.exception_class).toBe('NotFoundError');
  });

  it('lists the clusters of a project and region', async () => {
    const res = await emu.call('GET', '/cloud/v2/k8s/clusters/1/76');
    expect(res.body.count).toBe(1);
    expect((await emu.call('GET', '/cloud/v2/k8s/clusters/1/77')).body).toEqual({ count: 0, results: [] });
  });

  it('shows the security groups of each pool (security_group_ids, as the vendor SDK models require)', async () => {
    const res = await emu.call('GET', ONE);
    const [pool] = res.body.pools;
    expect(pool.security_group_ids).toEqual([expect.stringMatching(/^[0-9a-f-]{36}$/)]);
    expect((await emu.call('GET', '/cloud/v2/k8s/clusters/1/76')).body.results[0].pools[0].security_group_ids).toEqual(pool.security_group_ids);
  });

  it('upgrade_versions offers only the next minor version', async () => {
    const res = await emu.call('GET', `${ONE}/upgrade_versions`);
    expect(res.body).toEqual({ count: 1, results: [{ version: 'v1.30.6' }] });
  });

  it('upgrade_versions picks the newest patch of the next minor', () => {
    expect(upgradeVersions(['v1.29.8', 'v1.30.1', 'v1.30.10', 'v1.30.6', 'v1.31.0'], 'v1.29.8')).toEqual(['v1.30.10']);
  });

  it('upgrade_versions is empty at the newest minor', async () => {
    emu.state.k8sClusters.get('1/76/prod-eu')!.version = 'v1.32.1';
    expect((await emu.call('GET', `${ONE}/upgrade_versions`)).body).toEqual({ count: 0, results: [] });
  });

  it('upgrade answers an upgrade_k8s_cluster_v2 task; Provisioning and locked while it runs; new version after', async () => {
    const res = await emu.call('POST', `${ONE}/upgrade`, { body: { version: 'v1.30.6' } });
    expect(res.status).toBe(200);
    const [taskId] = res.body.tasks;
    expect((await emu.call('GET', ONE)).body).toMatchObject({ status: 'Provisioning', task_id: taskId, version: 'v1.29.8' });
    expect((await emu.call('GET', `/cloud/v1/tasks/${taskId}`)).body.task_type).toBe('upgrade_k8s_cluster_v2');
    emu.clock.advance(3000);
    expect((await emu.call('GET', ONE)).body).toMatchObject({ status: 'Provisioned', task_id: null, version: 'v1.30.6' });
    expect((await emu.call('GET', `${ONE}/upgrade_versions`)).body.results).toEqual([{ version: 'v1.31.3' }]);
  });

  it('upgrade answers 400 for a version not offered (two minors ahead)', async () => {
    const res = await emu.call('POST', `${ONE}/upgrade`, { body: { version: 'v1.31.3' } });
    expect(res.status).toBe(400);
    expect(res.body.exception_class).toBe('ValidationError');
  });

  it('upgrade answers 400 without a version', async () => {
    expect((await emu.call('POST', `${ONE}/upgrade`, { body: {} })).status).toBe(400);
  });

  it('upgrade answers 409 while an upgrade runs', async () => {
    await emu.call('POST', `${ONE}/upgrade`, { body: { version: 'v1.30.6' } });
    expect((await emu.call('POST', `${ONE}/upgrade`, { body: { version: 'v1.30.6' } })).status).toBe(409);
  });
});
