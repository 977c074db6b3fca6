import { describe, expect, it } from 'vitest';
import { type TestEmulator, useTestEmulator } from '../../helpers/emulator.js';

let emu: TestEmulator;
useTestEmulator((started) => (emu = started));

describe('emulator FastEdge app writes', () => {
  it('POST creates a draft app with the next id, found by name, and records the create', async () => {
    const res = await emu.call('POST', '/fastedge/v1/apps', { body: { name: 'new-edge', binary: 7 } });
    expect(res.body).toMatchObject({ id: 1301, name: 'new-edge', binary: 7, status: 0, api_type: 'wasi-http', plan_id: 1 });
    expect((await emu.call('GET', '/fastedge/v1/apps/by-name/new-edge')).body).toBe(1301);
    expect((await emu.call('GET', '/fastedge/v1/apps/1301')).body).toMatchObject({ env: {}, rsp_headers: {}, comment: '' });
    expect(emu.mutations.map((m) => [m.kind, m.id, m.change, m.after])).toEqual([['fastedge_app', '1301', 'create', { name: 'new-edge', binary: 7 }]]);
  });

  it('PATCH changes only the fields sent, and records those that changed', async () => {
    await emu.call('PATCH', '/fastedge/v1/apps/1300', { body: { comment: 'router', status: 1, env: { A: 'b' } } });
    expect(emu.state.fastedgeApps.get(1300)).toMatchObject({ name: 'edge-router', binary: 502, status: 1, comment: 'router', env: { A: 'b' } });
    expect(emu.mutations.map((m) => m.after)).toEqual([{ comment: 'router', env: { A: 'b' } }]);
  });

  it('a PATCH of equal values is no change', async () => {
    await emu.call('PATCH', '/fastedge/v1/apps/1300', { body: { status: 1, binary: 502 } });
    expect(emu.mutations).toEqual([]);
  });

  it('PATCH renaming an app moves its URL with it', async () => {
    const res = await emu.call('PATCH', '/fastedge/v1/apps/1234', { body: { name: 'renamed-app' } });
    expect(res.body).toMatchObject({ name: 'renamed-app', url: 'https://renamed-app.fastedge.app' });
    expect((await emu.call('GET', '/fastedge/v1/apps/by-name/legacy-app')).status).toBe(404);
  });

  it('PATCH of an unknown app answers 404 with no body', async () => {
    const res = await emu.call('PATCH', '/fastedge/v1/apps/999', { body: { status: 1 } });
    expect(res.status).toBe(404);
    expect(res.text).toBe('');
  });
});

describe('emulator streaming player writes', () => {
  it('POST creates a player with the next id and the platform defaults, and records the create', async () => {
    expect((await emu.call('POST', '/streaming/players', { body: { player: { name: 'new-player', mute: true } } })).status).toBe(200);
    expect(emu.state.players.get(61)).toEqual({
      id: 61,
      name: 'new-player',
      client_id: 1,
      autoplay: false,
      mute: true,
      disable_skin: false,
      save_options_to_cookies: true,
      show_sharing: true,
      speed_control: false,
    });
    expect(emu.mutations.map((m) => [m.kind, m.id, m.change, m.after])).toEqual([['streaming_player', '61', 'create', { name: 'new-player', mute: true }]]);
  });

  it('POST allows a name another player has (the platform keeps no names unique)', async () => {
    expect((await emu.call('POST', '/streaming/players', { body: { player: { name: 'main-player' } } })).status).toBe(200);
    expect([...emu.state.players.values()].filter((p) => p.name === 'main-player')).toHaveLength(2);
  });

  it('PATCH changes the settings sent, a blank logo position clears it, and answers the player', async () => {
    emu.state.players.get(60)!.logo_position = 'tl';
    const res = await emu.call('PATCH', '/streaming/players/60', { body: { player: { name: 'main-player', logo_position: '', logo: 'https://x.example/l.png' } } });
    expect(res.body).toMatchObject({ id: 60, name: 'main-player', logo: 'https://x.example/l.png', fg_color: '#FFFFFF', bg_color: '#000000' });
    expect(res.body).not.toHaveProperty('logo_position');
    expect(emu.mutations.map((m) => m.after)).toEqual([{ logo_position: null, logo: 'https://x.example/l.png' }]);
  });

  it('PATCH of an unknown player answers 404 {"status", "error"}', async () => {
    const res = await emu.call('PATCH', '/streaming/players/999', { body: { player: { name: 'x' } } });
    expect(res.status).toBe(404);
    expect(res.body.status).toBe(404);
  });
});
