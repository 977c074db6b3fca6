import { describe, expect, it } from 'vitest';
import type { ResourceAttributes } from '../../../src/kinds/registry.js';
import { iamResellerNotificationSetting } from '../../../src/kinds/iam-reseller-notification-setting/provider.js';
import { type TestEmulator } from '../../helpers/emulator.js';
import { planChange, type ProviderHarness, useProviderHarness, desiredOf } from '../../helpers/providers.js';
import { resource } from '../../helpers/stack.js';
import { REF } from '../../helpers/ref.js';

const ONE = '/iam/reselling/resellers/{resellerId}/notification_settings/{notificationSettingsId}';

const desired = desiredOf<ResourceAttributes['iam_reseller_notification_setting']>({
  reseller_id: 7,
  notification_settings_id: 3,
  notification_type: 'failed_login',
  email: 'sec@example.com',
  enabled: true,
  ensure: 'present',
});

let emu: TestEmulator;
let h: ProviderHarness;

useProviderHarness((e, harness) => ([emu, h] = [e, harness]));

describe('iam_reseller_notification_setting read', () => {
  it('observes the type, e-mail and enabled flag', async () => {
    expect(await iamResellerNotificationSetting.read(h.ctx, desired(), REF)).toEqual({
      exists: true,
      state: { notification_settings_id: 3, notification_type: 'failed_login', email: 'ops@example.com', enabled: false },
    });
  });

  it('answers a setting the platform does not know (404) as not existing', async () => {
    expect(await iamResellerNotificationSetting.read(h.ctx, desired({ notification_settings_id: 99 }), REF)).toEqual({ exists: false });
  });

  it('retries a 503 once with one recorded backoff and then reads the setting', async () => {
    emu.faults.failNext({ method: 'GET', path: ONE, status: 503, count: 1 });
    expect((await iamResellerNotificationSetting.read(h.ctx, desired(), REF)).exists).toBe(true);
    expect(h.retryDelays).toEqual([250]);
  });

  it('waits exactly as long as a 429 Retry-After asks before reading again', async () => {
    emu.faults.failNext({ method: 'GET', path: ONE, status: 429, retryAfter: 9 });
    expect((await iamResellerNotificationSetting.read(h.ctx, desired(), REF)).exists).toBe(true);
    expect(h.retryDelays).toEqual([9000]);
  });
});

describe('iam_reseller_notification_setting apply', () => {
  it('sends the full body in the PATCH and the platform ends with the desired setting', async () => {
    const change = await planChange(h.ctx, resource('iam_reseller_notification_setting', 'login_alerts', desired()));
    expect(change.changes.map((c) => c.path.join('.'))).toEqual(['email', 'enabled']);
    await iamResellerNotificationSetting.apply(h.ctx, change);

    expect(h.sent.filter((r) => r.method === 'PATCH')).toEqual([
      { method: 'PATCH', path: '/iam/reselling/resellers/7/notification_settings/3', body: { notification_type: 'failed_login', email: 'sec@example.com', enabled: true } },
    ]);
    expect(emu.requests.filter((r) => r.method === 'PATCH').map((r) => r.status)).toEqual([200]);
    expect(emu.state.notificationSettings.get(3)).toMatchObject({ notification_type: 'failed_login', email: 'sec@example.com', enabled: true });
    expect(emu.state.notificationSettings.get(4)).toMatchObject({ email: 'billing@example.com', enabled: true });
  });

  it('sends the unchanged type and e-mail, and the platform enabled flag, when only the e-mail changes and enabled is unset', async () => {
    const { enabled: _, ...withoutEnabled } = desired();
    const change = await planChange(
      h.ctx,
      resource('iam_reseller_notification_setting', 'login_alerts', withoutEnabled as ResourceAttributes['iam_reseller_notification_setting']),
    );
    await iamResellerNotificationSetting.apply(h.ctx, change);
    expect(h.sent.filter((r) => r.method === 'PATCH').map((r) => r.body)).toEqual([{ notification_type: 'failed_login', email: 'sec@example.com', enabled: false }]);
    expect(emu.state.notificationSettings.get(3)).toMatchObject({ email: 'sec@example.com', enabled: false });
  });

  it('plans a setting that matches as a no-op', async () => {
    const change = await planChange(
      h.ctx,
      resource(
        'iam_reseller_notification_setting',
        'deletion_requests',
        desired({ notification_settings_id: 4, notification_type: 'deletion_request', email: 'billing@example.com' }),
      ),
    );
    expect(change.action).toBe('no-op');
  });
});

describe('iam_reseller_notification_setting apply of a change without its payload', () => {
  it('refuses a change without the body and sends nothing', async () => {
    const change = await planChange(h.ctx, resource('iam_reseller_notification_setting', 'login_alerts', desired()));
    const { payload: _, ...broken } = change;
    await expect(iamResellerNotificationSetting.apply(h.ctx, broken)).rejects.toMatchObject({ code: 'EDGEFORM_PLAN_PAYLOAD', message: expect.stringContaining('body') });
    await expect(iamResellerNotificationSetting.apply(h.ctx, { ...change, payload: { body: { email: 'x@example.com' } } })).rejects.toMatchObject({
      code: 'EDGEFORM_PLAN_PAYLOAD',
    });
    expect(h.sent.filter((r) => r.method === 'PATCH')).toEqual([]);
  });
});

describe('iam_reseller_notification_setting found by its natural key', () => {
  const byKey = (over: Partial<ResourceAttributes['iam_reseller_notification_setting']> = {}): ResourceAttributes['iam_reseller_notification_setting'] => {
    const { notification_settings_id: _, ...rest } = desired({ email: 'noc@example.com', ...over });
    return rest;
  };
  const LIST = '/iam/reselling/resellers/{resellerId}/notification_settings';

  it('finds a setting by reseller, type and e-mail, and says so', async () => {
    expect(await iamResellerNotificationSetting.read(h.ctx, byKey({ email: 'ops@example.com' }), REF)).toEqual({
      exists: true,
      state: { notification_settings_id: 3, notification_type: 'failed_login', email: 'ops@example.com', enabled: false },
      foundBy: 'reseller_id 7, notification_type "failed_login" and email "ops@example.com"',
    });
  });

  it('refuses a key two settings share, naming both ids', async () => {
    emu.state.notificationSettings.set(9, { id: 9, reseller: 7, notification_type: 'failed_login', email: 'ops@example.com', enabled: true });
    await expect(iamResellerNotificationSetting.read(h.ctx, byKey({ email: 'ops@example.com' }), REF)).rejects.toMatchObject({
      code: 'EDGEFORM_AMBIGUOUS_IDENTITY',
      candidates: ['3', '9'],
    });
  });

  it('creates a missing setting with one POST of its type, e-mail and enabled flag', async () => {
    const change = await planChange(h.ctx, resource('iam_reseller_notification_setting', 'noc', byKey()));
    expect(change.action).toBe('create');
    await iamResellerNotificationSetting.apply(h.ctx, change);
    expect(h.sent.filter((r) => r.method === 'POST')).toEqual([
      { method: 'POST', path: '/iam/reselling/resellers/7/notification_settings', body: { notification_type: 'failed_login', email: 'noc@example.com', enabled: true } },
    ]);
    expect(emu.requests.filter((r) => r.method === 'POST').map((r) => r.status)).toEqual([201]);
    expect((await planChange(h.ctx, resource('iam_reseller_notification_setting', 'noc', byKey()))).action).toBe('no-op');
  });

  it('never sends the POST twice when its answer is lost: the platform made it, the re-read finds it', async () => {
    emu.faults.dropNext({ method: 'POST', path: LIST, when: 'after' });
    const change = await planChange(h.ctx, resource('iam_reseller_notification_setting', 'noc', byKey()));
    await expect(iamResellerNotificationSetting.apply(h.ctx, change)).resolves.toBe('unacknowledged');
    expect(h.sent.filter((r) => r.method === 'POST')).toHaveLength(1);
    expect([...emu.state.notificationSettings.values()].filter((s) => s.email === 'noc@example.com')).toHaveLength(1);
  });

  it('updates the enabled flag of a setting found by its key (PATCH of the found id)', async () => {
    const change = await planChange(h.ctx, resource('iam_reseller_notification_setting', 'ops', byKey({ email: 'ops@example.com', enabled: true })));
    expect(change).toMatchObject({ action: 'update', identity: 'reseller_id 7, notification_type "failed_login" and email "ops@example.com"' });
    await iamResellerNotificationSetting.apply(h.ctx, change);
    expect(h.sent.filter((r) => r.method === 'PATCH').map((r) => r.path)).toEqual(['/iam/reselling/resellers/7/notification_settings/3']);
    expect(emu.state.notificationSettings.get(3)).toMatchObject({ enabled: true });
  });

  it('deletes a setting found by its key (ensure: absent)', async () => {
    const change = await planChange(h.ctx, resource('iam_reseller_notification_setting', 'ops', byKey({ email: 'ops@example.com', ensure: 'absent' })));
    expect(change).toMatchObject({ action: 'delete', before: { notification_settings_id: 3 } });
    await iamResellerNotificationSetting.apply(h.ctx, change);
    expect([...emu.state.notificationSettings.keys()]).toEqual([4]);
  });
});
