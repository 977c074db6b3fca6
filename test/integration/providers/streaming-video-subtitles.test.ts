import { describe, expect, it } from 'vitest';
import { streamingVideoSubtitles } from '../../../src/kinds/streaming-video-subtitles/provider.js';
import { type TestEmulator } from '../../helpers/emulator.js';
import { planBlocks, type ProviderHarness, useProviderHarness } from '../../helpers/providers.js';
import { checkBlock } from '../../helpers/stack.js';

const SUBTITLES = '/streaming/videos/{video_id}/subtitles';

let emu: TestEmulator;
let h: ProviderHarness;

useProviderHarness((e, harness) => ([emu, h] = [e, harness]));

describe('streaming_video_subtitles check', () => {
  it('passes when every required language has a subtitle', async () => {
    expect(await streamingVideoSubtitles.evaluate(h.ctx, { video_id: 9876, languages: ['eng', 'ger'] })).toEqual({
      status: 'pass',
      message: 'video 9876 has subtitles in eng, ger',
      details: { video_id: 9876, required: ['eng', 'ger'], present: ['eng', 'ger'], missing: [] },
    });
  });

  it('fails naming the missing languages and the ones present', async () => {
    expect(await streamingVideoSubtitles.evaluate(h.ctx, { video_id: 9877, languages: ['eng', 'ger'] })).toMatchObject({
      status: 'fail',
      message: 'video 9877 is missing subtitles in ger (present: eng)',
    });
  });

  it("fails for a video the platform does not know, with the platform's message", async () => {
    const outcome = await streamingVideoSubtitles.evaluate(h.ctx, { video_id: 5555, languages: ['eng'] });
    expect(outcome.status).toBe('fail');
    expect(outcome.message).toBe('video 5555 not found: Not Found. Video 5555 was not found; check the initial parameters of the request.');
  });

  it('retries a 503 once with one recorded backoff and then evaluates', async () => {
    emu.faults.failNext({ method: 'GET', path: SUBTITLES, status: 503, count: 1 });
    expect((await streamingVideoSubtitles.evaluate(h.ctx, { video_id: 9876, languages: ['eng'] })).status).toBe('pass');
    expect(h.retryDelays).toEqual([250]);
  });

  it("turns a failure other than 404 into a check error with the platform's message, and the plan errors", async () => {
    emu.faults.failNext({ method: 'GET', path: SUBTITLES, status: 403 });
    const plan = await planBlocks(h.ctx, [], [checkBlock('streaming_video_subtitles', 'subs', { video_id: 9876, languages: ['eng'] })]);
    expect(plan.checks[0]).toMatchObject({ status: 'error' });
    expect(plan.checks[0]?.message).toContain('Forbidden (injected by the emulator)');
    expect(plan.errored).toBe(true);
  });
});
