import { describe, expect, it } from 'vitest';
import { type TestEmulator, useTestEmulator } from '../../helpers/emulator.js';

const LIST = '/iam/reselling/resellers/7/notification_settings';
const ONE = `${LIST}/3`;
const valid = { notification_type: 'failed_login', email: 'sec@example.com', enabled: true };

describe('emulator IAM reseller notification settings', () => {
  let emu: TestEmulator;
  useTestEmulator((started) => (emu = started));

  it('lists as {count, next, previous, results}', async () => {
    const res = await emu.call('GET', LIST);
    expect(res.body).toMatchObject({ count: 2, next: null, previous: null });
    expect(res.body.results.map((s: { id: number }) => s.id)).toEqual([3, 4]);
  });

  it('pages with limit and offset', async () => {
    const first = await emu.call('GET', `${LIST}?limit=1`);
    expect(first.body.results.map((s: { id: number }) => s.id)).toEqual([3]);
    expect(first.body.next).toBe('reselling/resellers/7/notification_settings?offset=1&limit=1');
    const second = await emu.call('GET', `${LIST}?limit=1&offset=1`);
    expect(second.body.results.map((s: { id: number }) => s.id)).toEqual([4]);
    expect(second.body.next).toBeNull();
    expect(second.body.previous).toBe('reselling/resellers/7/notification_settings?offset=0&limit=1');
  });

  it('GET one answers the Read shape', async () => {
    const res = await emu.call('GET', ONE);
    expect(res.body).toEqual({ id: 3, reseller: 7, notification_type: 'failed_login', email: 'ops@example.com', enabled: false });
  });

  it('GET one of another reseller answers 404', async () => {
    expect((await emu.call('GET', '/iam/reselling/resellers/8/notification_settings/3')).status).toBe(404);
  });

  it('PATCH updates and answers the Read shape', async () => {
    const res = await emu.call('PATCH', ONE, { body: valid });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: 3, reseller: 7, ...valid });
    expect(emu.state.notificationSettings.get(3)).toMatchObject(valid);
  });

  it('PATCH without enabled keeps enabled', async () => {
    const res = await emu.call('PATCH', ONE, { body: { notification_type: 'failed_login', email: 'a@example.com' } });
    expect(res.body.enabled).toBe(false);
  });

  it('PATCH answers 400 {"errors": {email: [...]}} for a bad e-mail', async () => {
    const res = await emu.call('PATCH', ONE, { body: { ...valid, email: 'not-an-email' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errors: { email: ['Enter a valid email address.'] } });
    expect(emu.state.notificationSettings.get(3)?.email).toBe('ops@example.com');
  });

  it('PATCH answers 400 for an e-mail longer than 254 characters', async () => {
    const res = await emu.call('PATCH', ONE, { body: { ...valid, email: `${'a'.repeat(64)}@${'b'.repeat(190)}.com` } });
    expect(res.status).toBe(400);
    expect(res.body.errors.email).toContain('Ensure this field has no more than 254 characters.');
  });

  it('PATCH answers 400 for a notification_type outside the enum', async () => {
    const res = await emu.call('PATCH', ONE, { body: { ...valid, notification_type: 'login' } });
    expect(res.status).toBe(400);
    expect(res.body.errors.notification_type).toEqual(['"login" is not a valid choice.']);
  });

  it('PATCH answers 400 naming every required field that is missing', async () => {
    const res = await emu.call('PATCH', ONE, { body: { enabled: true } });
    expect(res.body.errors).toEqual({ notification_type: ['This field is required.'], email: ['This field is required.'] });
  });

  it('PATCH answers 400 for a non-boolean enabled', async () => {
    expect((await emu.call('PATCH', ONE, { body: { ...valid, enabled: 'yes' } })).body.errors.enabled).toBeDefined();
  });

  it('PATCH with malformed JSON answers 400 {"message": "JSON parse error - ..."}', async () => {
    const res = await emu.call('PATCH', ONE, { rawBody: '{"email": ', headers: { 'Content-Type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^JSON parse error - /);
  });
});
