import { z } from 'zod';
import { NotFoundError } from '../../api/errors.js';
import { apiPath } from '../../api/path.js';
import type { CheckProvider } from '../provider.js';

/** The fields of a video's subtitle list (a bare array of `subtitle`) edgeform reads. */
const subtitlesAnswer = z.array(z.looseObject({ language: z.string() }));

/**
 * Check: a video has subtitles in every required language. A video the platform does not
 * know (404) fails the check with the platform's message; it is not a plan error.
 */
export const streamingVideoSubtitles: CheckProvider<'streaming_video_subtitles'> = {
  kind: 'check',
  type: 'streaming_video_subtitles',

  async evaluate(ctx, desired) {
    let subtitles: z.infer<typeof subtitlesAnswer>;
    try {
      subtitles = (await ctx.api.get(apiPath`/streaming/videos/${desired.video_id}/subtitles`, { schema: subtitlesAnswer, signal: ctx.signal })).body;
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
