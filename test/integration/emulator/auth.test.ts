import { describe, expect, it } from 'vitest';
import { DEMO, startTestEmulator, type TestEmulator, useTestEmulator } from '../../helpers/emulator.js';

const FIP = `/cloud/v1/floatingips/1/76/${DEMO.fip}`;

describe('emulator auth', () => {
  let emu: TestEmulator;
  useTestEmulator((started) => (emu = started), { resetEach: false });

  it('generates a default key that contains a $', () => {
    expect(emu.apiKey).toMatch(/^emu\$[0-9a-f]+$/);
  });

  it('accepts "APIKey <key>"', async () => {
    expect((await emu.call('GET', FIP, { auth: `APIKey ${emu.apiKey}` })).status).toBe(200);
  });

  it('accepts the lowercase scheme "apikey <key>"', async () => {
    expect((await emu.call('GET', FIP, { auth: `apikey ${emu.apiKey}` })).status).toBe(200);
  });

  it('accepts a lowercase header name', async () => {
    const res = await fetch(`${emu.url}${FIP}`, { headers: { authorization: `apikey ${emu.apiKey}` } });
    expect(res.status).toBe(200);
  });

  it('checks the key before routing: an unknown platform path without a key is 401, with a key 404', async () => {
    expect((await emu.call('GET', '/cloud/v1/nothing-here', { auth: null })).status).toBe(401);
    expect((await emu.call('GET', '/cloud/v1/nothing-here')).status).toBe(404);
  });

  it('answers 401 with a JSON detail when the header is missing', async () => {
    const res = await emu.call('GET', FIP, { auth: null });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Authentication credentials were not provided.' });
  });

  it('answers 401 for a wrong key', async () => {
    const res = await emu.call('GET', FIP, { auth: 'APIKey emu$wrong' });
    expect(res.status).toBe(401);
    expect(res.body.detail).toMatch(/not valid/);
  });

  it('answers 401 for another scheme (Bearer)', async () => {
    expect((await emu.call('GET', FIP, { auth: `Bearer ${emu.apiKey}` })).status).toBe(401);
  });

  it('answers 401 when the scheme is followed by two spaces', async () => {
    expect((await emu.call('GET', FIP, { auth: `APIKey  ${emu.apiKey}` })).status).toBe(401);
  });

  it('guards every product, not only cloud', async () => {
    for (const path of ['/fastedge/v1/apps', '/streaming/players', '/iam/reselling/resellers/7/notification_settings', '/cloud/v2/limits_request']) {
      expect((await emu.call('GET', path, { auth: null })).status).toBe(401);
    }
  });

  it('works with a chosen key containing $ and shell-special characters', async () => {
    const other = await startTestEmulator({ apiKey: '1234$abc$def' });
    try {
      expect((await other.call('GET', FIP)).status).toBe(200);
      expect((await other.call('GET', FIP, { auth: 'APIKey 1234' })).status).toBe(401);
    } finally {
      await other.close();
    }
  });
});
