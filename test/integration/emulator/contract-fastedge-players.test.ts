/**
 * Contract tests of the FastEdge app and streaming player writes (create, update, find by name)
 * against the vendor OpenAPI files in test/fixtures/openapi/: the emulator's answers match the
 * documented response schemas, it refuses what the vendor's request schemas refuse (FastEdge
 * 400 `{error}`, players 422 `{"errors": {field: [message]}}` as documented), and the request
 * bodies edgeform's providers build validate against the vendor's request schemas.
 */
import { describe, expect, it } from 'vitest';
import { fastedgeApp } from '../../../src/kinds/fastedge-app/provider.js';
import { providers } from '../../../src/kinds/providers.js';
import { readStack } from '../../../src/kinds/read-stack.js';
import type { ResourceAttributes } from '../../../src/kinds/registry.js';
import { streamingPlayer } from '../../../src/kinds/streaming-player/provider.js';
import { type TestEmulator, useTestEmulator } from '../../helpers/emulator.js';
import { componentValidator, expectValid, loadSpec, queryChecker, requestValidator, responseValidator, expectDocumentedAnswer } from '../../helpers/openapi.js';
import { createProviderHarness } from '../../helpers/providers.js';
import { resource, stackOf } from '../../helpers/stack.js';
import { REF } from '../../helpers/ref.js';

const FASTEDGE = 'fastedge_api.yaml';
const STREAMING = 'streaming_api.yaml';
const P = {
  apps: '/fastedge/v1/apps',
  app: '/fastedge/v1/apps/{app_id}',
  byName: '/fastedge/v1/apps/by-name/{name}',
  players: '/streaming/players',
  player: '/streaming/players/{player_id}',
};

let emu: TestEmulator;
useTestEmulator((started) => (emu = started));

const expectResponse = (file: string, method: string, template: string, path: string, status: number, body?: unknown) =>
  expectDocumentedAnswer(emu, file, method, template, path, status, body);

describe('FastEdge app writes (contract)', () => {
  const app = { name: 'new-edge', binary: 777, env: { MODE: 'prod' }, rsp_headers: { 'X-Edge': '1' }, status: 1, comment: 'made by edgeform' };

  it('POST /fastedge/v1/apps answers app_short (200)', async () => {
    expectValid(requestValidator(FASTEDGE, 'POST', P.apps), app);
    const body = await expectResponse(FASTEDGE, 'POST', P.apps, P.apps, 200, app);
    expect(body).toMatchObject({ name: 'new-edge', binary: 777, status: 1 });
  });

  it('PATCH /fastedge/v1/apps/{app_id} answers app_short (200)', () => expectResponse(FASTEDGE, 'PATCH', P.app, '/fastedge/v1/apps/1300', 200, { comment: 'router', status: 2 }));

  it('GET /fastedge/v1/apps/by-name/{name} answers the bare app id (200)', async () => {
    expect(await expectResponse(FASTEDGE, 'GET', P.byName, '/fastedge/v1/apps/by-name/edge-router', 200)).toBe(1300);
  });

  it('GET by-name of a name no app has answers 404 without a body, as every FastEdge 404', async () => {
    const res = await emu.call('GET', '/fastedge/v1/apps/by-name/nothing-here');
    expect(res.status).toBe(404);
    expect(res.text).toBe('');
  });

  it("edgeform finds apps by name through the list's documented name filter, never the by-name lookup the vendor deprecates", async () => {
    expect(loadSpec(FASTEDGE).doc.paths[P.byName].get.deprecated).toBe(true);
    const h = createProviderHarness(emu);
    try {
      await fastedgeApp.read(h.ctx, { name: 'edge-router', ensure: 'present' }, REF);
      const blocks = ['edge-router', 'legacy-app', 'not-there'].map((name, i) => resource('fastedge_app', `app_${i}`, { name, ensure: 'present' }));
      await readStack(h.ctx, stackOf(blocks), providers, { parallelism: 4 });
      expect(h.sent.map((r) => `${r.method} ${r.path}`)).toEqual([`GET ${P.apps}`, `GET ${P.apps}`]);
      const check = queryChecker(FASTEDGE, 'GET', P.apps);
      for (const { query } of h.sent) expect(check(new URLSearchParams(Object.entries(query ?? {}).map(([k, v]): [string, string] => [k, String(v)])))).toEqual([]);
      expect(h.sent[0]?.query).toMatchObject({ name: 'edge-router' });
    } finally {
      await h.close();
    }
    await expectResponse(FASTEDGE, 'GET', P.apps, `${P.apps}?name=EDGE&limit=1000&offset=0&ordering=id`, 200);
  });

  const refused: Array<{ name: string; body: unknown }> = [
    { name: 'a name with capitals', body: { name: 'My-App', binary: 1 } },
    { name: 'a name of 65 characters', body: { name: 'a'.repeat(65), binary: 1 } },
    { name: 'a name ending with a dash', body: { name: 'app-', binary: 1 } },
    { name: 'binary 0', body: { name: 'app', binary: 0 } },
    { name: 'a string binary', body: { name: 'app', binary: '5' } },
    { name: 'status 6', body: { name: 'app', binary: 1, status: 6 } },
    { name: 'a numeric env value', body: { name: 'app', binary: 1, env: { A: 1 } } },
    { name: 'rsp_headers as a list', body: { name: 'app', binary: 1, rsp_headers: ['X: 1'] } },
    { name: 'a comment over 1024 characters', body: { name: 'app', binary: 1, comment: 'c'.repeat(1025) } },
    { name: 'a string debug', body: { name: 'app', binary: 1, debug: 'yes' } },
  ];

  it.each(refused)('POST and PATCH refuse what the vendor schema refuses (400 {error}): $name', async ({ body }) => {
    expect(requestValidator(FASTEDGE, 'POST', P.apps)(body)).toBe(false);
    expect(requestValidator(FASTEDGE, 'PATCH', P.app)(body)).toBe(false);
    await expectResponse(FASTEDGE, 'POST', P.apps, P.apps, 400, body);
    await expectResponse(FASTEDGE, 'PATCH', P.app, '/fastedge/v1/apps/1300', 400, body);
    expect(emu.mutations).toEqual([]);
  });

  it('POST without binary (or template) answers 400 {error}: Gcore’s own client requires it, though the schema does not', async () => {
    const body = await expectResponse(FASTEDGE, 'POST', P.apps, P.apps, 400, { name: 'no-binary' });
    expect(body.error).toBe('binary is required (or template)');
  });

  it('POST or PATCH to a name another app has answers 400 {error}: names are unique in an account', async () => {
    await expectResponse(FASTEDGE, 'POST', P.apps, P.apps, 400, { name: 'edge-router', binary: 1 });
    await expectResponse(FASTEDGE, 'PATCH', P.app, '/fastedge/v1/apps/1234', 400, { name: 'edge-router' });
  });

  it("edgeform's create and update bodies validate against the vendor's request schemas", () => {
    const desired: ResourceAttributes['fastedge_app'] = { ...app, status: 1, ensure: 'present' };
    const create = fastedgeApp.create!.plan(desired, REF).payload as { body: unknown };
    expectValid(requestValidator(FASTEDGE, 'POST', P.apps), create.body);
    const state = { app_id: 1300, name: 'new-edge', binary: 1, status: 0, comment: '', env: {}, rsp_headers: {} };
    const update = fastedgeApp.plan(desired, state).payload as { body: unknown };
    expect(update.body).toEqual({ binary: 777, status: 1, comment: 'made by edgeform', env: { MODE: 'prod' }, rsp_headers: { 'X-Edge': '1' } });
    expectValid(requestValidator(FASTEDGE, 'PATCH', P.app), update.body);
  });
});

describe('streaming player writes (contract)', () => {
  const player = { name: 'brand-player', bg_color: '#112233', autoplay: true, logo: 'https://cdn.example.com/logo.png', logo_position: 'tr' };

  it('POST /streaming/players answers 200 with no body, as documented', async () => {
    expectValid(requestValidator(STREAMING, 'POST', P.players), { player });
    const res = await emu.call('POST', P.players, { body: { player } });
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    expect([...emu.state.players.values()].filter((p) => p.name === 'brand-player')).toHaveLength(1);
  });

  it('PATCH /streaming/players/{player_id} answers player (200)', async () => {
    expectValid(requestValidator(STREAMING, 'PATCH', P.player), { player: { name: 'main-player', mute: true } });
    expect(await expectResponse(STREAMING, 'PATCH', P.player, '/streaming/players/60', 200, { player: { name: 'main-player', mute: true } })).toMatchObject({ id: 60, mute: true });
  });

  const refused: Array<{ name: string; body: unknown; errors: Record<string, string[]> }> = [
    { name: 'no name', body: { player: { autoplay: true } }, errors: { name: ["can't be blank"] } },
    { name: 'a string autoplay', body: { player: { name: 'p', autoplay: 'yes' } }, errors: { autoplay: ['is invalid'] } },
    { name: 'a numeric colour', body: { player: { name: 'p', bg_color: 0x112233 } }, errors: { bg_color: ['is invalid'] } },
    { name: 'a null logo_position (typed string)', body: { player: { name: 'p', logo_position: null } }, errors: { logo_position: ['is invalid'] } },
    { name: 'a null logo (typed string)', body: { player: { name: 'p', logo: null } }, errors: { logo: ['is invalid'] } },
  ];

  it.each(refused)('POST and PATCH refuse what the vendor schema refuses (422 {"errors"}): $name', async ({ body, errors }) => {
    expect(requestValidator(STREAMING, 'POST', P.players)(body) && requestValidator(STREAMING, 'PATCH', P.player)(body)).toBe(false);
    for (const [method, path] of [
      ['POST', P.players],
      ['PATCH', '/streaming/players/60'],
    ] as const) {
      const res = await emu.call(method, path, { body });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ errors });
    }
    expect(emu.mutations).toEqual([]);
  });

  it("answers a body without player 422 name can't be blank: the operation says name is required, though the schema leaves player optional", async () => {
    expect(requestValidator(STREAMING, 'POST', P.players)({})).toBe(true);
    const res = await emu.call('POST', P.players, { body: {} });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ errors: { name: ["can't be blank"] } });
  });

  it('refuses a colour not in the documented format #AAAAAA and an unknown logo position (422)', async () => {
    const res = await emu.call('POST', P.players, { body: { player: { name: 'p', fg_color: 'red', logo_position: 'middle' } } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ errors: { fg_color: ['is invalid'], logo_position: ['is not included in the list'] } });
  });

  it("edgeform's create and update bodies validate against the vendor's request schemas", () => {
    const desired = { ...player, logo_position: 'tr', ensure: 'present' } as ResourceAttributes['streaming_player'];
    const create = streamingPlayer.create!.plan(desired, REF).payload as { body: unknown };
    expectValid(requestValidator(STREAMING, 'POST', P.players), create.body);
    const state = { player_id: 60, name: 'brand-player', bg_color: '#000000', autoplay: false, logo: null, logo_position: null };
    const update = streamingPlayer.plan(desired, state).payload as { body: unknown };
    expect(update.body).toEqual({ player: { name: 'brand-player', bg_color: '#112233', autoplay: true, logo: 'https://cdn.example.com/logo.png', logo_position: 'tr' } });
    expectValid(requestValidator(STREAMING, 'PATCH', P.player), update.body);
    expectValid(componentValidator(STREAMING, 'player'), (update.body as { player: unknown }).player);
  });

  it('clears a logo position as the vendor documents (a blank setting inherits the default player\'s, null): the update sends "", the create leaves it out', async () => {
    const desired = { name: 'brand-player', logo_position: null, ensure: 'present' } as ResourceAttributes['streaming_player'];
    const update = streamingPlayer.plan(desired, { player_id: 60, name: 'brand-player', logo_position: 'tr' });
    expect(update.changes).toEqual([{ path: ['logo_position'], op: 'update', before: 'tr', after: null }]);
    const body = (update.payload as { body: { player: Record<string, unknown> } }).body;
    expect(body).toEqual({ player: { name: 'brand-player', logo_position: '' } });
    expectValid(requestValidator(STREAMING, 'PATCH', P.player), body);
    const create = streamingPlayer.create!.plan(desired, REF).payload as { body: unknown };
    expect(create.body).toEqual({ player: { name: 'brand-player' } });
    expectValid(requestValidator(STREAMING, 'POST', P.players), create.body);
    // The emulator takes the blank as the vendor says: the player has no logo position any more.
    emu.state.players.get(60)!.logo_position = 'tr';
    const patched = await expectResponse(STREAMING, 'PATCH', P.player, '/streaming/players/60', 200, { player: { name: 'main-player', logo_position: '' } });
    expect(patched).not.toHaveProperty('logo_position');
    expect(emu.state.players.get(60)).not.toHaveProperty('logo_position');
  });
});
