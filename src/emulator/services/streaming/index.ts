import { z } from 'zod';
import { datetime, int, listSection, positiveInt, uuid } from '../../fixture-parts.js';
import { parseDate } from '../../format.js';
import { defineService } from '../../service.js';
import { STREAMING_PRODUCT } from './product.js';
import { AI_TASK_STATUSES, streamingRoutes } from './routes.js';

/** A streaming player, in API shape. */
export interface PlayerRecord {
  id: number;
  name: string;
  client_id: number;
  [field: string]: unknown;
}

/** A subtitle of a video. */
export interface SubtitleRecord {
  id: number;
  name: string;
  language: string;
  vtt: string;
}

/** A streaming video with its subtitles. */
export interface VideoRecord {
  id: number;
  name: string;
  subtitles: SubtitleRecord[];
}

/** A streaming AI task. `created_at`/`started_at` (epoch ms) drive filtering and ordering. */
export interface AiTaskRecord {
  task_id: string;
  task_name: 'transcription' | 'content-moderation';
  status: string;
  progress: number;
  task_data: Record<string, unknown>;
  created_at: number;
  started_at: number;
  /** When processing ended (epoch ms); null while it has not. */
  completed_at: number | null;
}

/** The streaming service's slice of the state. */
export interface StreamingSlice {
  readonly players: Map<number, PlayerRecord>;
  readonly videos: Map<number, VideoRecord>;
  /** In fixture order. */
  aiTasks: AiTaskRecord[];
}

const playerFixture = z.strictObject({
  id: positiveInt,
  name: z.string().min(1),
  client_id: positiveInt.optional(),
  framework: z.string().optional(),
  design: z.string().optional(),
  custom_css: z.string().optional(),
  js_url: z.string().optional(),
  skin_is_url: z.string().optional(),
  bg_color: z.string().optional(),
  fg_color: z.string().optional(),
  text_color: z.string().optional(),
  hover_color: z.string().optional(),
  autoplay: z.boolean().default(false),
  mute: z.boolean().default(false),
  disable_skin: z.boolean().default(false),
  save_options_to_cookies: z.boolean().default(true),
  show_sharing: z.boolean().default(true),
  logo_position: z.enum(['tl', 'tr', 'bl', 'br']).optional(),
  speed_control: z.boolean().default(false),
  logo: z.string().optional(),
});

const videoFixture = z.strictObject({
  id: positiveInt,
  name: z.string().optional(),
  subtitles: z
    .array(
      z.strictObject({
        id: positiveInt,
        name: z.string().default(''),
        language: z.string().regex(/^[a-z]{3}$/, 'languages are 3-letter ISO 639-2 codes such as eng'),
        vtt: z.string().default('WEBVTT\n'),
      }),
    )
    .default([]),
});

const aiTaskFixture = z.strictObject({
  task_id: uuid,
  task_name: z.enum(['transcription', 'content-moderation']),
  status: z.enum(AI_TASK_STATUSES),
  progress: int.min(0).max(100).optional(),
  task_data: z.record(z.string(), z.unknown()).default({}),
  created_at: datetime,
  started_at: datetime.optional(),
  completed_at: datetime.optional(),
});

/**
 * Streaming: players (list, POST, GET, PATCH, DELETE), videos (list), video subtitles (list, POST, GET, PATCH, DELETE), AI tasks (list with every filter of
 * the specification). Fixtures: `streaming_players`, `videos`, `ai_tasks`.
 */
export const streamingService = defineService({
  product: STREAMING_PRODUCT,
  fixtures: { streaming_players: listSection(playerFixture), videos: listSection(videoFixture), ai_tasks: listSection(aiTaskFixture) },
  fixtureIds: { streaming_players: (x) => x.id, videos: (x) => x.id, ai_tasks: (x) => x.task_id },
  createState: (): StreamingSlice => ({ players: new Map(), videos: new Map(), aiTasks: [] }),
  load(slice, { streaming_players, videos, ai_tasks }, world) {
    slice.players.clear();
    slice.videos.clear();
    for (const x of streaming_players) {
      const player: PlayerRecord = { client_id: world.client_id, ...x };
      for (const [k, v] of Object.entries(player)) if (v === undefined) delete player[k];
      slice.players.set(x.id, player);
    }
    for (const x of videos) {
      slice.videos.set(x.id, { id: x.id, name: x.name ?? `video-${x.id}`, subtitles: x.subtitles.map((s) => ({ ...s })) });
    }
    slice.aiTasks = ai_tasks.map((x) => ({
      task_id: x.task_id,
      task_name: x.task_name,
      status: x.status,
      progress: x.progress ?? (x.status === 'SUCCESS' ? 100 : 0),
      task_data: structuredClone(x.task_data),
      created_at: parseDate(x.created_at),
      started_at: parseDate(x.started_at ?? x.created_at),
      completed_at: x.completed_at === undefined ? null : parseDate(x.completed_at),
    }));
  },
  dump: (state) => ({ streaming_players: [...state.players.values()], videos: [...state.videos.values()], ai_tasks: state.aiTasks }),
  routes: streamingRoutes,
  mutationKinds: ['streaming_player', 'subtitle'],
  taskTargets: [],
});
