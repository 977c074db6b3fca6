import { isPlainObject, parseIntStrict } from '../../format.js';
import { emptyReply, fail, jsonReply, type Reply } from '../../reply.js';
import type { RouteContext, ServiceRoute } from '../../router.js';
import type { StreamingSlice, SubtitleRecord, VideoRecord } from './index.js';

type Ctx = RouteContext<StreamingSlice>;

const LIST = '/streaming/videos/{video_id}/subtitles';
const ONE = '/streaming/videos/{video_id}/subtitles/{id}';

/** The largest subtitle text the platform takes (5 MB). */
export const MAX_SUBTITLE_TEXT = 5 * 1024 * 1024;

/** A streaming error `{status, error: "<reason>. <message>"}` (schemas badrequest, notfound, subtitleerror422). */
function streamingError(status: 400 | 404 | 422, error: string): never {
  return fail(jsonReply(status, { status, error }));
}

function unprocessable(message: string): never {
  return streamingError(422, `Unprocessable Entity. ${message}`);
}

function pathId(ctx: Ctx, name: string): number {
  const text = ctx.params[name] ?? '';
  const id = parseIntStrict(text);
  if (id === undefined || id < 1) streamingError(400, `Bad Request. ${name} must be a positive integer, got "${text}".`);
  return id;
}

function findVideo(ctx: Ctx): VideoRecord {
  const id = pathId(ctx, 'video_id');
  const video = ctx.state.videos.get(id);
  if (!video) streamingError(404, `Not Found. Video ${id} was not found; check the initial parameters of the request.`);
  return video;
}

function findSubtitle(ctx: Ctx): { video: VideoRecord; subtitle: SubtitleRecord } {
  const video = findVideo(ctx);
  const id = pathId(ctx, 'id');
  const subtitle = video.subtitles.find((s) => s.id === id);
  if (!subtitle) streamingError(404, `Not Found. Subtitle ${id} of video ${video.id} was not found; check the initial parameters of the request.`);
  return { video, subtitle };
}

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

function listSubtitles(ctx: Ctx): Reply {
  return jsonReply(200, findVideo(ctx).subtitles.map(renderSubtitle));
}

function getSubtitle(ctx: Ctx): Reply {
  return jsonReply(200, renderSubtitle(findSubtitle(ctx).subtitle));
}

/**
 * POST subtitleCreate: `language` required, and the text (`vtt`) since this account has no AI
 * transcription; 200 with the subtitle. Several subtitles of one language are allowed, as on
 * the platform ("language uniqueness is not required").
 */
function createSubtitle(ctx: Ctx): Reply {
  const video = findVideo(ctx);
  const fields = checkFields(ctx.body);
  if (fields.language === undefined) unprocessable('language is required.');
  if (fields.vtt === undefined || fields.vtt === '') unprocessable('vtt is required: the text of the subtitles (AI transcription is not enabled for this account).');
  let id = 1;
  for (const v of ctx.state.videos.values()) for (const s of v.subtitles) id = Math.max(id, s.id + 1);
  const subtitle: SubtitleRecord = { id, name: fields.name ?? fields.language, language: fields.language, vtt: fields.vtt };
  video.subtitles.push(subtitle);
  ctx.state.recordMutation(ctx.now, 'subtitle', id, 'create', { video_id: video.id, name: subtitle.name, language: subtitle.language });
  return jsonReply(200, renderSubtitle(subtitle));
}

/** PATCH subtitleBodyPatch: any of name, language, vtt; 200 with subtitlePatched (subtitleBase: no id, as the vendor's example). */
function patchSubtitle(ctx: Ctx): Reply {
  const { subtitle } = findSubtitle(ctx);
  const fields = checkFields(ctx.body);
  const changed: Record<string, unknown> = {};
  for (const field of ['name', 'language', 'vtt'] as const) {
    const value = fields[field];
    if (value === undefined || value === subtitle[field]) continue;
    subtitle[field] = value;
    changed[field] = value;
  }
  if (Object.keys(changed).length > 0) ctx.state.recordMutation(ctx.now, 'subtitle', subtitle.id, 'update', changed);
  return jsonReply(200, { name: subtitle.name, language: subtitle.language, vtt: subtitle.vtt });
}

function deleteSubtitle(ctx: Ctx): Reply {
  const { video, subtitle } = findSubtitle(ctx);
  video.subtitles = video.subtitles.filter((s) => s !== subtitle);
  ctx.state.recordMutation(ctx.now, 'subtitle', subtitle.id, 'delete');
  return emptyReply(204);
}

/** A video's subtitle routes (streaming_api.yaml): list, POST (200), GET one, PATCH, DELETE (204). */
export const subtitleRoutes: ServiceRoute<StreamingSlice>[] = [
  { method: 'GET', pattern: LIST, handler: listSubtitles },
  { method: 'POST', pattern: LIST, handler: createSubtitle },
  { method: 'GET', pattern: ONE, handler: getSubtitle },
  { method: 'PATCH', pattern: ONE, handler: patchSubtitle },
  { method: 'DELETE', pattern: ONE, handler: deleteSubtitle },
];
