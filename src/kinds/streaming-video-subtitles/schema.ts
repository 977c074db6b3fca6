import { z } from 'zod';
import { defineKind } from '../kind-spec.js';
import { positiveId } from '../fields.js';

/** An ISO 639-2 (bibliographic) language code as the platform spells it: three lowercase letters. */
const languageCode = z.string().regex(/^[a-z]{3}$/, { error: 'must be a 3-letter lowercase ISO 639-2 language code such as eng or ger' });

/** streaming_video_subtitles check: each listed language has a subtitle on the video. */
export const streamingVideoSubtitlesKind = defineKind({
  type: 'streaming_video_subtitles',
  kind: 'check',
  description: 'Check: the video has a subtitle in each listed language.',
  identity: ['video_id'],
  shape: () =>
    z.strictObject({
      video_id: positiveId.describe('The video id (integer).'),
      languages: z.array(languageCode).min(1, { error: 'must list at least one language' }).describe('ISO 639-2 codes (eng, ger, ...) that must each have a subtitle.'),
    }),
});
