import { must } from '../../errors.js';
import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import type { FieldChange } from '../../plan/types.js';
import { createPlan, onlyMatch } from '../create.js';
import { fetchListPage, listEndpointOf } from '../kind-list.js';
import { defineListReads } from '../list-read.js';
import type { ProviderContext, ResourceProvider } from '../provider.js';
import type { ResourceAttributes } from '../registry.js';
import { defineLifecycle } from '../lifecycle.js';
import { readOrGone } from '../shared.js';
import { subtitleImport } from './import.js';
import { subtitleAnswer, subtitleList, type Subtitle } from './list.js';

type Desired = ResourceAttributes['streaming_video_subtitle'];

/** The PATCH body (subtitleBodyPatch): only the fields that change. */
const payloadSchema = z.object({ body: z.object({ name: z.string().optional(), language: z.string().optional(), vtt: z.string().optional() }) });

/** The POST body (subtitleCreate): the language, the text, and the name when the stack sets it. */
const createPayloadSchema = z.object({ body: z.object({ language: z.string().min(1), vtt: z.string().min(1), name: z.string().optional() }) });

const listPath = (video: number) => subtitleList.path({ video_id: video });

const subtitlePath = (video: number, id: number | string) => apiPath`/streaming/videos/${video}/subtitles/${id}`;

/**
 * Subtitle text as compared: line ends as LF, no byte order mark, no trailing blank lines (the
 * platform keeps the text it is given, "with escaped \n (\r)"; a file saved on Windows is the same
 * subtitle).
 */
function normalizeText(text: string | null | undefined): string {
  return (text ?? '')
    .replace(/^\uFEFF/, '')
    .replace(/\r\n|\r/g, '\n')
    .replace(/\n+$/, '');
}

/** How a block without an id is found again, as plans show it. */
const describeKey = (d: Pick<Desired, 'video_id' | 'language'>) => `video_id ${d.video_id} and language "${d.language}"`;

/** The one subtitle of the block's language among a video's `subtitles`; more than one is an error naming them (the platform allows several). */
function pickByLanguage(d: Desired, subtitles: readonly Subtitle[]): { item: Subtitle; foundBy: string } | null {
  const identity = describeKey(d);
  const item = onlyMatch(
    subtitles.filter((s) => s.language === d.language),
    (s) => s.id,
    { type: 'streaming_video_subtitle', identity },
  );
  return item === null ? null : { item, foundBy: identity };
}

const reads = defineListReads<'streaming_video_subtitle', Subtitle>({
  readOne: (ctx, d) =>
    readOrGone(async () => ({
      ...(await ctx.api.get(subtitlePath(d.video_id, must(d.subtitle_id, 'd.subtitle_id')), { schema: subtitleAnswer, signal: ctx.signal })).body,
      video_id: d.video_id,
    })),
  project: (_ctx, d, s) => ({ exists: true, state: { subtitle_id: s.id, video_id: d.video_id, language: s.language, name: s.name ?? null, vtt: s.vtt ?? '' } }),
  hasId: (d) => d.subtitle_id !== undefined,
  async find(ctx: ProviderContext, d) {
    return pickByLanguage(d, (await fetchListPage(ctx, subtitleList, { video_id: d.video_id }, { index: 0, offset: 0, limit: 0 })).items);
  },
  // The blocks of one video found by language are found in the video's one subtitle list.
  findInList: {
    key: (d) => d.language,
    itemKey: (s) => s.language,
    pick: pickByLanguage,
  },
  list: {
    group: (d) => String(d.video_id),
    memberId: (d) => String(d.subtitle_id),
    itemId: (s) => String(s.id),
    ...listEndpointOf(subtitleList, ([d]) => ({ video_id: d.video_id })),
  },
});

/** Create (POST, answered with the subtitle), update (PATCH, only what differs) and delete; no tasks. */
const lifecycle = defineLifecycle('streaming_video_subtitle', {
  updateVerbs: ['Modifying', 'Modified'],
  create: { payload: createPayloadSchema, request: ({ desired, payload }) => ({ method: 'POST', path: listPath(desired.video_id), body: payload.body }) },
  update: { payload: payloadSchema, request: ({ desired, payload, id }) => ({ method: 'PATCH', path: subtitlePath(desired.video_id, id), body: payload.body }) },
  delete: { request: ({ desired, id }) => ({ method: 'DELETE', path: subtitlePath(desired.video_id, id) }) },
});

/**
 * A video's subtitle. A block with `subtitle_id` is read by it; one without is found by its video
 * and language in the video's subtitle list (the platform allows several per language: more than
 * one is a plan error naming them) and created (POST, answered with the subtitle) when missing.
 * The name and the WebVTT text (and, for a block that names its id, the language) are updated in
 * place (PATCH, only what differs). Text compares with its line ends normalised. A create is never
 * sent twice: when its answer is lost, the executor's re-read by video and language decides.
 * Subtitles of one video that name their ids are read together from the video's list (subtitleList,
 * the fetcher `edgeform import` reads too).
 */
export const streamingVideoSubtitle: ResourceProvider<'streaming_video_subtitle'> = {
  ...lifecycle,
  kind: 'resource',
  type: 'streaming_video_subtitle',

  read: reads.read,
  groupRead: reads.groupRead,
  import: subtitleImport,

  create: {
    plan(desired) {
      const declared = {
        video_id: desired.video_id,
        language: desired.language,
        name: desired.name,
        // A file's text is shown by its file name; an inline text as it is.
        ...(desired.vtt_file === undefined ? { vtt: desired.vtt } : { vtt_file: desired.vtt_file }),
      };
      const body = { language: desired.language, vtt: desired.vtt, ...(desired.name === undefined ? {} : { name: desired.name }) };
      return createPlan(declared, 'subtitle_id', { body });
    },
    identity: (desired) => (desired.subtitle_id === undefined ? describeKey(desired) : null),
  },

  summarize: (state) => ({ subtitle_id: state.subtitle_id, video_id: state.video_id, language: state.language, name: state.name }),

  plan(desired, state) {
    const before: Record<string, unknown> = { subtitle_id: state.subtitle_id, video_id: state.video_id, language: state.language };
    const after: Record<string, unknown> = { ...before, language: desired.language };
    const changes: FieldChange[] = [];
    const body: Record<string, string> = {};
    if (desired.language !== state.language) {
      changes.push({ path: ['language'], op: 'update', before: state.language, after: desired.language });
      body.language = desired.language;
    }
    if (desired.name !== undefined) {
      before.name = state.name;
      after.name = desired.name;
      if (desired.name !== state.name) {
        changes.push({ path: ['name'], op: 'update', before: state.name, after: desired.name });
        body.name = desired.name;
      }
    }
    if (desired.vtt !== undefined) {
      before.vtt = state.vtt;
      after.vtt = desired.vtt;
      if (normalizeText(desired.vtt) !== normalizeText(state.vtt as string)) {
        changes.push({ path: ['vtt'], op: 'update', before: state.vtt, after: desired.vtt });
        body.vtt = desired.vtt;
      }
    }
    return {
      action: changes.length > 0 ? 'update' : 'no-op',
      before,
      after,
      changes,
      payload: changes.length > 0 ? { body } : undefined,
      errors: [],
      warnings: [],
      notes: desired.vtt_file === undefined ? [] : [`vtt from ${desired.vtt_file}`],
    };
  },
};
