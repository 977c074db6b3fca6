import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import { type KindList, type VideoScope } from '../kind-list.js';

/** The fields of a subtitle answer (the vendor's `subtitle`) edgeform reads. */
export const subtitleAnswer = z.looseObject({ id: z.int(), name: z.string().nullish(), language: z.string(), vtt: z.string().nullish() });

/** A subtitle as edgeform reads it: the answer, with the video it belongs to (which the answer does not say). */
export type Subtitle = z.infer<typeof subtitleAnswer> & { video_id: number };

/**
 * A video's subtitles (`GET /streaming/videos/{video_id}/subtitles`): a bare array, not paged.
 * Grouped reads, the find by video and language, and import all read it through this one fetcher.
 */
export const subtitleList: KindList<VideoScope, Subtitle> = {
  paging: { kind: 'none' },
  path: (s) => apiPath`/streaming/videos/${s.video_id}/subtitles`,
  async fetchPage(ctx, s) {
    const items = (await ctx.api.get(subtitleList.path(s), { schema: z.array(subtitleAnswer), signal: ctx.signal })).body;
    return { items: items.map((item) => ({ ...item, video_id: s.video_id })) };
  },
};
