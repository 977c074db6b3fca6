import { z } from 'zod';
import type { ProviderContext } from './provider.js';
import { listAll, type AccountScope, type KindList, type ListAllOptions } from './kind-list.js';

/** The fields of a video (the vendor's `searchVideo`) import reads: its id and name. */
const videoAnswer = z.looseObject({ id: z.int().min(1), name: z.string().nullish() });

/** A streaming video of the account. */
export type StreamingVideo = z.infer<typeof videoAnswer>;

/** Videos asked for per page of the video list (the vendor documents `per_page` but neither its default nor its largest value). */
export const VIDEOS_PER_PAGE = 100;

/**
 * The account's streaming videos (`GET /streaming/videos`): a bare array in numbered pages
 * (`page`, `per_page`), with no count, so the list ends at an empty page (or one with nothing
 * new, should the platform serve fewer a page than asked for).
 */
export const videoList: KindList<AccountScope, StreamingVideo> = {
  paging: { kind: 'pages' },
  path: () => '/streaming/videos',
  async fetchPage(ctx, s, { index }) {
    return { items: (await ctx.api.get(videoList.path(s), { schema: z.array(videoAnswer), query: { page: index + 1, per_page: VIDEOS_PER_PAGE }, signal: ctx.signal })).body };
  },
};

/** The videos whose subtitles `edgeform import` reads when no `--video-id` is given: every video the platform lists. */
export async function listVideos(ctx: ProviderContext, options?: ListAllOptions): Promise<StreamingVideo[]> {
  return listAll(ctx, videoList, {}, (v) => String(v.id), options);
}
