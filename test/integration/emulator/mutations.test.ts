import { describe, expect, it } from 'vitest';
import { DEMO, type TestEmulator, useTestEmulator } from '../../helpers/emulator.js';

const RESIZE = `/cloud/v1/instances/1/76/${DEMO.instance}/changeflavor`;
const FIP_V1 = `/cloud/v1/floatingips/1/76/${DEMO.fip}`;
const FIP_V2 = `/cloud/v2/floatingips/1/76/${DEMO.fip}`;
const UPGRADE = '/cloud/v2/k8s/clusters/1/76/prod-eu/upgrade';
const SETTING = '/iam/reselling/resellers/7/notification_settings/3';

describe('the emulator records the changes it made (mutation log)', () => {
  let emu: TestEmulator;
  useTestEmulator((started) => (emu = started), { control: true, taskDurationMs: 1000 });

  it('records a task change when the task finishes, not when it is accepted', async () => {
    const task = (await emu.call('POST', RESIZE, { body: { flavor_id: 'g2-standard-4-8' } })).body.tasks[0];
    expect(emu.mutations).toEqual([]);
    emu.clock.advance(1000);
    expect(emu.mutations).toEqual([{ time: emu.clock.now(), kind: 'instance', id: DEMO.instance, change: 'resize_vm', after: { flavor_id: 'g2-standard-4-8' }, taskId: task }]);
  });

  it('records nothing for a task that ends in ERROR', async () => {
    emu.state.setNextTaskError('k8s_cluster', DEMO.cluster, 'no capacity');
    await emu.call('POST', UPGRADE, { body: { version: 'v1.30.6' } });
    emu.clock.advance(1000);
    expect(emu.mutations).toEqual([]);
  });

  it('records the upgrade and the tags update with the values they left', async () => {
    await emu.call('POST', UPGRADE, { body: { version: 'v1.30.6' } });
    await emu.call('PATCH', FIP_V2, { body: { tags: { owner: null, env: 'prod' } } });
    emu.clock.advance(1000);
    expect(emu.mutations.map(({ kind, id, change, after }) => ({ kind, id, change, after }))).toEqual([
      { kind: 'k8s_cluster', id: '1/76/prod-eu', change: 'upgrade_k8s_cluster_v2', after: { version: 'v1.30.6' } },
      { kind: 'floating_ip', id: DEMO.fip, change: 'update_floating_ip', after: { tags: { env: 'prod', team: 'edge' } } },
    ]);
  });

  it('records synchronous changes: deletes, the deprecated v1 tags PATCH, a created quota request', async () => {
    expect((await emu.call('DELETE', '/fastedge/v1/apps/1234')).status).toBe(204);
    expect((await emu.call('DELETE', '/streaming/players/55')).status).toBe(204);
    expect((await emu.call('DELETE', '/cloud/v2/limits_request/42')).status).toBe(204);
    expect((await emu.call('PATCH', FIP_V1, { body: { tags: { owner: 'bob' } } })).status).toBe(200);
    const created = await emu.call('POST', '/cloud/v2/limits_request', { body: { description: 'more', requested_limits: { global_limits: { project_count_limit: 3 } } } });
    expect(emu.mutations.map(({ kind, id, change }) => `${kind} ${id} ${change}`)).toEqual([
      'fastedge_app 1234 delete',
      'streaming_player 55 delete',
      'quota_request 42 delete',
      `floating_ip ${DEMO.fip} update`,
      `quota_request ${created.body.id} create`,
    ]);
  });

  it('records only changes that took effect: a repeated delete (404) or a PATCH of equal values is not a change', async () => {
    await emu.call('DELETE', '/streaming/players/55');
    expect((await emu.call('DELETE', '/streaming/players/55')).status).toBe(404);
    const body = { notification_type: 'failed_login', email: 'sec@example.com', enabled: false };
    await emu.call('PATCH', SETTING, { body });
    await emu.call('PATCH', SETTING, { body });
    expect((await emu.call('PATCH', FIP_V2, { body: { tags: { env: 'staging' } } })).body).toEqual({ tasks: [] });
    expect(emu.mutations.map(({ kind, id, change, after }) => ({ kind, id, change, after }))).toEqual([
      { kind: 'streaming_player', id: '55', change: 'delete', after: {} },
      { kind: 'notification_setting', id: '3', change: 'update', after: { email: 'sec@example.com' } },
    ]);
  });

  it('is served at GET /__emulator/mutations and emptied by reset()', async () => {
    await emu.call('DELETE', '/fastedge/v1/apps/1234');
    const res = await emu.call('GET', '/__emulator/mutations', { auth: null });
    expect(res.body.mutations).toEqual([{ time: emu.clock.now(), kind: 'fastedge_app', id: '1234', change: 'delete', after: {}, taskId: null }]);
    emu.reset();
    expect(emu.mutations).toEqual([]);
    expect(emu.state.mutations).toBe(emu.mutations);
  });

  it('POST /__emulator/faults reseeds, and GET tells the seed', async () => {
    const res = await emu.call('POST', '/__emulator/faults', { body: { seed: 1234, set: { dropAfterRate: 0.5 } }, auth: null });
    expect(res.body).toMatchObject({ seed: 1234, dropAfterRate: 0.5 });
    expect((await emu.call('POST', '/__emulator/faults', { body: { seed: -1 } })).status).toBe(400);
  });
});
