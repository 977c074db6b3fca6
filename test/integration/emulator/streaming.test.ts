import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';

describe('emulator streaming players and subtitles', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator();
  });
  beforeEach(() => emu.reset());
  afterAll(() => emu.close());

  it('lists players as a bare array', async () => {
    const res = await emu.call('GET', '/streaming/players');
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body.map((p: { id: number }) => p.id)).toEqual([55, 60]);
  });

  it('answers an empty array past the last page', async () => {
    expect((await emu.call('GET', '/streaming/players?page=2')).body).toEqual([]);
  });

  it('GET one answers the player', async () => {
    expect((await emu.call('GET', '/streaming/players/55')).body).toMatchObject({ id: 55, name: 'old-player' });
  });

  it('DELETE answers 204 and the player is gone', async () => {
    const res = await emu.call('DELETE', '/streaming/players/55');
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await emu.call('GET', '/streaming/players')).body.map((p: { id: number }) => p.id)).toEqual([60]);
  });

  it('an unknown player answers 404 {"status":404,"error":"Not Found. ..."}', async () => {
    const res = await emu.call('DELETE', '/streaming/players/99');
    expect(res.status).toBe(404);
    expect(res.body.status).toBe(404);
    expect(res.body.error).toMatch(/^Not Found\. /);
  });

  it('lists the subtitles of a video as a bare array of {id, name, language, vtt}', async () => {
    const res = await emu.call('GET', '/streaming/videos/9876/subtitles');
    expect(res.body.map((s: { language: string }) => s.language)).toEqual(['eng', 'ger']);
    expect(Object.keys(res.body[0]).sort()).toEqual(['id', 'language', 'name', 'vtt']);
    expect(res.body[0].vtt).toMatch(/^WEBVTT/);
  });

  it('answers 404 {status, error} for the subtitles of an unknown video', async () => {
    const res = await emu.call('GET', '/streaming/videos/1/subtitles');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ status: 404 });
    expect(typeof res.body.error).toBe('string');
  });

  it('answers 400 {status, error} for a malformed video id', async () => {
    const res = await emu.call('GET', '/streaming/videos/abc/subtitles');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 400 });
    expect(typeof res.body.error).toBe('string');
  });
});
