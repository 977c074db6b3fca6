import { defineImport } from '../kind-list.js';
import { subtitleList } from './list.js';

/**
 * Importing subtitles: every subtitle of a video, each pinned by its id, with its video, language,
 * name (a blank name is left out: unmanaged) and WebVTT text inline (`vtt`, the live text as it
 * is, so it must pass the kind's WebVTT check: a subtitle whose text does not is an error naming
 * it); named after the video and language (`video_9876_eng`), since names repeat across videos.
 */
export const subtitleImport = defineImport('streaming_video_subtitle', {
  scope: 'video',
  list: subtitleList,
  itemId: (subtitle) => String(subtitle.id),
  attributes: (subtitle, scope) => ({
    subtitle_id: subtitle.id,
    video_id: scope.video_id,
    language: subtitle.language,
    ...(subtitle.name === null || subtitle.name === undefined || subtitle.name === '' ? {} : { name: subtitle.name }),
    vtt: subtitle.vtt ?? '',
  }),
  blockName: (subtitle) => `video_${subtitle.video_id}_${subtitle.language}`,
  facts: (subtitle) => [
    ['language', subtitle.language],
    ['name', subtitle.name],
  ],
});
