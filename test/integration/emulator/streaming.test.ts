import { describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator, useTestEmulator } from '../../helpers/emulator.js';

describe('emulator streaming players, videos and subtitles', () => {
  let emu: TestEmulator;
  useTestEmulator((started) => (emu = started));

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

  it('lists the videos as a bare array, lowest id first, in pages of per_page (default 25, at most 100), empty past the last page', async () => {
    expect((await emu.call('GET', '/streaming/videos')).body).toEqual([
      { id: 9876, name: 'keynote', client_id: expect.any(Number), status: 'ready' },
      { id: 9877, name: 'product-tour', client_id: expect.any(Number), status: 'ready' },
    ]);
    expect((await emu.call('GET', '/streaming/videos?page=2&per_page=1')).body.map((v: { id: number }) => v.id)).toEqual([9877]);
    expect((await emu.call('GET', '/streaming/videos?page=3&per_page=1')).body).toEqual([]);
    expect((await emu.call('GET', '/streaming/videos?page=2')).body).toEqual([]);
  });

  it('serves at most 100 videos a page, and 25 without per_page', async () => {
    const many = await startTestEmulator({ fixtures: { videos: Array.from({ length: 130 }, (_, i) => ({ id: i + 1 })) } });
    try {
      expect((await many.call('GET', '/streaming/videos')).body).toHaveLength(25);
      expect((await many.call('GET', '/streaming/videos?per_page=1000')).body).toHaveLength(100);
      expect((await many.call('GET', '/streaming/videos?page=2&per_page=1000')).body.map((v: { id: number }) => v.id)).toEqual(Array.from({ length: 30 }, (_, i) => 101 + i));
    } finally {
      await many.close();
    }
  });

  it('answers 400 {status, error} for a page or per_page below 1', async () => {
    for (const query of ['page=0', 'per_page=0', 'page=x']) {
      const res = await emu.call('GET', `/streaming/videos?${query}`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ status: 400 });
    }
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
