import { NotFoundError } from '../api/errors.js';
import { apiPath } from '../api/path.js';
import type { CheckProvider } from './provider.js';

interface Subtitle {
  id: number;
  name: string;
  language: string;
}

/**
 * Check: a video has subtitles in every required language. A video the platform does not
 * know (404) fails the check with the platform's message; it is not a plan error.
 */
export const streamingVideoSubtitles: CheckProvider<'streaming_video_subtitles'> = {
  kind: 'check',
  type: 'streaming_video_subtitles',

  async evaluate(ctx, desired) {
    let subtitles: Subtitle[];
    try {
      subtitles = (await ctx.api.request<Subtitle[]>({ method: 'GET', path: apiPath`/streaming/videos/${desired.video_id}/subtitles`, signal: ctx.signal })).body;
    } catch (error) {
      if (error instanceof NotFoundError) {
        return { status: 'fail', message: `video ${desired.video_id} not found: ${error.platformMessage ?? 'the platform answered 404'}` };
      }
      throw error;
    }
    const present = [...new Set(subtitles.map((s) => s.language))].sort();
    const missing = desired.languages.filter((l) => !present.includes(l));
    const details = { video_id: desired.video_id, required: desired.languages, present, missing };
    if (missing.length === 0) return { status: 'pass', message: `video ${desired.video_id} has subtitles in ${desired.languages.join(', ')}`, details };
    return {
      status: 'fail',
      message: `video ${desired.video_id} is missing subtitles in ${missing.join(', ')} (present: ${present.length > 0 ? present.join(', ') : 'none'})`,
      details,
    };
  },
};
