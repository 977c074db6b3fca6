import { defineCollection, type Created } from '../../collection.js';
import { isPlainObject } from '../../format.js';
import { bareArray, pageNumbers, unpaged } from '../../paging.js';
import { fail, jsonReply } from '../../reply.js';
import type { RouteContext, ServiceRoute } from '../../router.js';
import type { StreamingSlice, SubtitleRecord, VideoRecord } from './index.js';
import { STREAMING_PRODUCT } from './product.js';

type Ctx = RouteContext<StreamingSlice>;

/** Videos per page of GET /streaming/videos without `per_page`, and the most a page holds (the platform documents neither). */
export const VIDEOS_PAGE_SIZE = { default: 25, max: 100 } as const;

/** The largest subtitle text the platform takes (5 MB). */
export const MAX_SUBTITLE_TEXT = 5 * 1024 * 1024;

/** A streaming error `{status, error: "<reason>. <message>"}` (schemas badrequest, notfound, subtitleerror422). */
function streamingError(status: 400 | 404 | 422, error: string): never {
  return fail(jsonReply(status, { status, error }));
}

function unprocessable(message: string): never {
  return streamingError(422, `Unprocessable Entity. ${message}`);
}

/**
 * Streaming videos: the account's videos (searchVideo: id, name, client_id, status), oldest
 * (lowest id) first, a bare array in numbered pages (`page`, `per_page`; more than the largest
 * page asked for is served as the largest page); a page past the end is an empty array. The
 * subtitles collection (subtitles.ts) finds its video here.
 */
export const videos = defineCollection<StreamingSlice, VideoRecord, undefined, undefined, 'positive-integer'>({
  product: STREAMING_PRODUCT,
  path: '/streaming/videos',
  idParam: 'video_id',
  idSyntax: 'positive-integer',
  noun: 'Video',
  store: (ctx) => ctx.state.videos,
  idOf: (video) => video.id,
  list: {
    paging: pageNumbers({ size: { param: 'per_page', ...VIDEOS_PAGE_SIZE }, answer: bareArray }),
    order: (a, b) => a.id - b.id,
    render: (v, ctx) => ({ id: v.id, name: v.name, client_id: ctx.state.defaults.client_id, status: 'ready' }),
  },
});

/** The `subtitle` shape. */
function renderSubtitle(s: SubtitleRecord): Record<string, unknown> {
  return { id: s.id, name: s.name, language: s.language, vtt: s.vtt };
}

/**
 * The fields of a subtitleCreate or subtitleBodyPatch body, checked as the platform does (422
 * with subtitleerror422's shape): strings, a 3-letter language code, text within 5 MB. The AI
 * options (auto_transcribe_audio_language, auto_translate_subtitles_language) are refused as the
 * platform refuses them on an account without AI (422).
 */
function checkFields(body: unknown): { name?: string; language?: string; vtt?: string } {
  if (!isPlainObject(body)) unprocessable('The request body must be a JSON object.');
  for (const option of ['auto_transcribe_audio_language', 'auto_translate_subtitles_language']) {
    if (body[option] !== undefined && body[option] !== null) unprocessable(`${option}: AI subtitles are not enabled for this account; contact your manager or the Support Team.`);
  }
  const out: { name?: string; language?: string; vtt?: string } = {};
  for (const field of ['name', 'language', 'vtt'] as const) {
    const value = body[field];
    if (value === undefined) continue;
    if (typeof value !== 'string') unprocessable(`${field} must be a string.`);
    out[field] = value;
  }
  if (out.language !== undefined && !/^[a-z]{3}$/.test(out.language)) unprocessable('Language code is not recognized.');
  if (out.vtt !== undefined && out.vtt.length > MAX_SUBTITLE_TEXT) unprocessable('vtt is larger than 5 MB.');
  return out;
}

/**
 * POST subtitleCreate: `language` required, and the text (`vtt`) since this account has no AI
 * transcription; 200 with the subtitle. Several subtitles of one language are allowed, as on
 * the platform ("language uniqueness is not required").
 */
function buildSubtitle(ctx: Ctx, video: VideoRecord): Created<SubtitleRecord> {
  const fields = checkFields(ctx.body);
  if (fields.language === undefined) unprocessable('language is required.');
  if (fields.vtt === undefined || fields.vtt === '') unprocessable('vtt is required: the text of the subtitles (AI transcription is not enabled for this account).');
  let id = 1;
  for (const v of ctx.state.videos.values()) for (const s of v.subtitles) id = Math.max(id, s.id + 1);
  const subtitle: SubtitleRecord = { id, name: fields.name ?? fields.language, language: fields.language, vtt: fields.vtt };
  return { record: subtitle, logged: { video_id: video.id, name: subtitle.name, language: subtitle.language } };
}

/** PATCH subtitleBodyPatch: any of name, language, vtt. */
function changeSubtitle(ctx: Ctx, subtitle: SubtitleRecord): Record<string, unknown> {
  const fields = checkFields(ctx.body);
  const changed: Record<string, unknown> = {};
  for (const field of ['name', 'language', 'vtt'] as const) {
    const value = fields[field];
    if (value === undefined || value === subtitle[field]) continue;
    subtitle[field] = value;
    changed[field] = value;
  }
  return changed;
}

/**
 * A video's subtitles (streaming_api.yaml): the list (a bare array), POST (200 with the
 * subtitle), GET one, PATCH (200 with subtitlePatched: subtitleBase, no id, as the vendor's
 * example), DELETE (204). The path's video is found first.
 */
const subtitles = defineCollection<StreamingSlice, SubtitleRecord, VideoRecord, undefined, 'positive-integer'>({
  product: STREAMING_PRODUCT,
  path: '/streaming/videos/{video_id}/subtitles',
  idSyntax: 'positive-integer',
  noun: 'Subtitle',
  notFoundName: (id, video) => `Subtitle ${id} of video ${video.id}`,
  scope: (ctx) => videos.find(ctx),
  store: (_ctx, video) => video.subtitles,
  idOf: (subtitle) => subtitle.id,
  mutationKind: 'subtitle',
  list: { paging: unpaged(bareArray), render: renderSubtitle },
  get: renderSubtitle,
  create: { build: buildSubtitle, answer: (subtitle) => jsonReply(200, renderSubtitle(subtitle)) },
  updates: [{ method: 'PATCH', change: changeSubtitle, answer: (s) => jsonReply(200, { name: s.name, language: s.language, vtt: s.vtt }) }],
  delete: {
    remove(_ctx, subtitle, video) {
      video.subtitles = video.subtitles.filter((s) => s !== subtitle);
    },
  },
});

/** The video list and a video's subtitle routes. */
export const subtitleRoutes: ServiceRoute<StreamingSlice>[] = [...videos.routes, ...subtitles.routes];
