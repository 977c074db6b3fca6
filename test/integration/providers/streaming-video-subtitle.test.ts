import { describe, expect, it } from 'vitest';
import type { ResourceAttributes } from '../../../src/kinds/registry.js';
import { streamingVideoSubtitle } from '../../../src/kinds/streaming-video-subtitle/provider.js';
import { KNOWN_AFTER_APPLY } from '../../../src/plan/types.js';
import { type TestEmulator } from '../../helpers/emulator.js';
import { planChange, type ProviderHarness, useProviderHarness } from '../../helpers/providers.js';
import { REF } from '../../helpers/ref.js';
import { resource } from '../../helpers/stack.js';

type Desired = ResourceAttributes['streaming_video_subtitle'];

const VTT = 'WEBVTT\n\n1\n00:00:01.000 --> 00:00:04.000\nBienvenue à la keynote.\n';
const ENGLISH = 'WEBVTT\n\n1\n00:00:01.000 --> 00:00:04.000\nWelcome to the keynote.\n';
const LIST = '/streaming/videos/{video_id}/subtitles';

const desired = (over: Partial<Desired> = {}): Desired => ({ video_id: 9876, language: 'fre', name: 'Français', vtt: VTT, ensure: 'present', ...over });
const block = (over: Partial<Desired> = {}) => resource('streaming_video_subtitle', 'french', desired(over));

let emu: TestEmulator;
let h: ProviderHarness;
useProviderHarness((e, harness) => ([emu, h] = [e, harness]));

const subtitles = (language: string) => emu.state.videos.get(9876)!.subtitles.filter((s) => s.language === language);

describe('streaming_video_subtitle read', () => {
  it('finds a subtitle without an id by its video and language, and says so', async () => {
    expect(await streamingVideoSubtitle.read(h.ctx, desired({ language: 'eng' }), REF)).toEqual({
      exists: true,
      state: { subtitle_id: 1000, video_id: 9876, language: 'eng', name: 'English', vtt: ENGLISH },
      foundBy: 'video_id 9876 and language "eng"',
    });
    expect(h.sent.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /streaming/videos/9876/subtitles']);
  });

  it('reads a subtitle that names its id by GET', async () => {
    expect(await streamingVideoSubtitle.read(h.ctx, desired({ subtitle_id: 1001, language: 'ger' }), REF)).toMatchObject({ exists: true, state: { subtitle_id: 1001 } });
    expect(h.sent.map((r) => r.path)).toEqual(['/streaming/videos/9876/subtitles/1001']);
  });

  it('answers a language the video has no subtitle in as not existing', async () => {
    expect(await streamingVideoSubtitle.read(h.ctx, desired(), REF)).toEqual({ exists: false });
  });

  it('refuses a language with two subtitles, naming both ids', async () => {
    emu.state.videos.get(9876)!.subtitles.push({ id: 1500, name: 'English 2', language: 'eng', vtt: ENGLISH });
    await expect(streamingVideoSubtitle.read(h.ctx, desired({ language: 'eng' }), REF)).rejects.toMatchObject({
      code: 'EDGEFORM_AMBIGUOUS_IDENTITY',
      candidates: ['1000', '1500'],
    });
  });
});

describe('streaming_video_subtitle apply', () => {
  it('creates a missing subtitle with one POST of its language, name and text', async () => {
    const change = await planChange(h.ctx, block());
    expect(change).toMatchObject({ action: 'create', identity: 'video_id 9876 and language "fre"', after: { subtitle_id: KNOWN_AFTER_APPLY, vtt: VTT } });
    await streamingVideoSubtitle.apply(h.ctx, change);
    expect(h.sent.filter((r) => r.method === 'POST')).toEqual([
      { method: 'POST', path: '/streaming/videos/9876/subtitles', body: { language: 'fre', name: 'Français', vtt: VTT } },
    ]);
    expect(subtitles('fre')).toEqual([{ id: 1003, name: 'Français', language: 'fre', vtt: VTT }]);
    expect((await planChange(h.ctx, block())).action).toBe('no-op');
  });

  it('never sends the POST twice when its answer is lost: the platform made it, the re-read finds it', async () => {
    emu.faults.dropNext({ method: 'POST', path: LIST, when: 'after' });
    const change = await planChange(h.ctx, block());
    await expect(streamingVideoSubtitle.apply(h.ctx, change)).resolves.toBe('unacknowledged');
    expect(h.sent.filter((r) => r.method === 'POST')).toHaveLength(1);
    expect(subtitles('fre')).toHaveLength(1);
    expect((await planChange(h.ctx, block())).action).toBe('no-op');
  });

  it('updates only what differs of a subtitle found by its language (PATCH of the found id)', async () => {
    const change = await planChange(h.ctx, block({ language: 'eng', name: 'English', vtt: VTT }));
    expect(change).toMatchObject({ action: 'update', identity: 'video_id 9876 and language "eng"', payload: { body: { vtt: VTT } } });
    await streamingVideoSubtitle.apply(h.ctx, change);
    expect(h.sent.filter((r) => r.method === 'PATCH')).toEqual([{ method: 'PATCH', path: '/streaming/videos/9876/subtitles/1000', body: { vtt: VTT } }]);
    expect(subtitles('eng')).toEqual([{ id: 1000, name: 'English', language: 'eng', vtt: VTT }]);
  });

  it('treats text that differs only in line ends as the same subtitle', async () => {
    const change = await planChange(h.ctx, block({ language: 'eng', name: 'English', vtt: ENGLISH.replaceAll('\n', '\r\n') }));
    expect(change.action).toBe('no-op');
  });

  it('changes the language of a subtitle that names its id', async () => {
    const change = await planChange(
      h.ctx,
      block({ subtitle_id: 1001, language: 'ltz', name: 'German (AI-generated)', vtt: 'WEBVTT\n\n1\n00:00:01.000 --> 00:00:04.000\nWillkommen zur Keynote.\n' }),
    );
    expect(change).toMatchObject({ action: 'update', payload: { body: { language: 'ltz' } } });
    await streamingVideoSubtitle.apply(h.ctx, change);
    expect(subtitles('ltz').map((s) => s.id)).toEqual([1001]);
  });

  it('deletes a subtitle found by its language (ensure: absent), leaving the others', async () => {
    const change = await planChange(h.ctx, block({ language: 'ger', ensure: 'absent' }));
    expect(change).toMatchObject({ action: 'delete', before: { subtitle_id: 1001 } });
    await streamingVideoSubtitle.apply(h.ctx, change);
    expect(h.sent.filter((r) => r.method === 'DELETE').map((r) => r.path)).toEqual(['/streaming/videos/9876/subtitles/1001']);
    expect(emu.state.videos.get(9876)!.subtitles.map((s) => s.id)).toEqual([1000]);
  });

  it('refuses a create without its payload and sends nothing', async () => {
    const change = await planChange(h.ctx, block());
    const { payload: _, ...broken } = change;
    await expect(streamingVideoSubtitle.apply(h.ctx, broken)).rejects.toMatchObject({ code: 'EDGEFORM_PLAN_PAYLOAD' });
    expect(h.sent.filter((r) => r.method !== 'GET')).toEqual([]);
  });
});
