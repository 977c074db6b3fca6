import { must } from '../../errors.js';
import { z } from 'zod';
import { defineKind, type TextProblem } from '../kind-spec.js';
import { ensureDeletable, positiveId } from '../fields.js';

/** A WebVTT timestamp: `hh:mm:ss.ttt` (hours of two or more digits) or `mm:ss.ttt`. */
const TIMESTAMP = /^(?:(\d{2,}):)?([0-5]\d):([0-5]\d)\.(\d{3})$/;

function seconds(stamp: string): number | null {
  const m = TIMESTAMP.exec(stamp);
  if (!m) return null;
  return Number(m[1] ?? 0) * 3600 + Number(m[2]) * 60 + Number(m[3]) + Number(m[4]) / 1000;
}

/**
 * The first problem that keeps `text` from being a WebVTT file, or null when it is one: the
 * signature (`WEBVTT` alone on the first line, or followed by a space or tab and a header), and
 * each cue's timing line (`start --> end [settings]`, timestamps `[hh:]mm:ss.ttt`, the end not
 * before the start). Blocks without a timing line must be NOTE, STYLE or REGION blocks, or a cue
 * identifier followed by its timing line. Cue text is not checked: the platform renders it as
 * given. Lines end with LF, CRLF or CR, as the format allows; a byte order mark is skipped.
 */
export function checkWebVtt(text: string): TextProblem | null {
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  const first = lines[0] ?? '';
  if (!/^WEBVTT(?:[ \t].*)?$/.test(first)) {
    return { line: 1, column: 1, message: 'a WebVTT file starts with the line "WEBVTT" (optionally followed by a space and a title)' };
  }
  let i = 1;
  // The header runs to the first blank line.
  while (i < lines.length && lines[i] !== '') {
    if (must(lines[i], 'lines[i]').includes('-->')) return { line: i + 1, column: 1, message: 'a blank line must separate the "WEBVTT" header from the first cue' };
    i++;
  }
  while (i < lines.length) {
    while (i < lines.length && lines[i] === '') i++;
    if (i >= lines.length) break;
    const start = i;
    while (i < lines.length && lines[i] !== '') i++;
    const block = lines.slice(start, i);
    const problem = checkBlock(block, start + 1);
    if (problem) return problem;
  }
  return null;
}

/** Checks one block (lines between blank lines) starting at 1-based line `at`. */
function checkBlock(block: readonly string[], at: number): TextProblem | null {
  const head = must(block[0], 'block[0]');
  if (!head.includes('-->') && /^(NOTE|STYLE|REGION)(?:[ \t]|$)/.test(head)) return null;
  const timingIndex = head.includes('-->') ? 0 : block[1]?.includes('-->') ? 1 : -1;
  if (timingIndex === -1) {
    return { line: at, column: 1, message: `a cue needs a timing line "00:00:01.000 --> 00:00:04.000" ${block.length > 1 ? 'after its identifier' : 'here'}` };
  }
  return checkTiming(must(block[timingIndex], 'block[timingIndex]'), at + timingIndex);
}

function checkTiming(line: string, lineNumber: number): TextProblem | null {
  const m = /^([ \t]*)(\S+)([ \t]+)-->([ \t]+)(\S+)(.*)$/.exec(line);
  if (!m) return { line: lineNumber, column: 1, message: 'a timing line is "START --> END", with spaces around the arrow' };
  // Every group of the timing pattern takes part in a match (none is optional), so each is a string.
  const [, lead, startText, gap1, gap2, endText, rest] = m as unknown as [string, string, string, string, string, string, string];
  const startColumn = lead.length + 1;
  const endColumn = startColumn + startText.length + gap1.length + 3 + gap2.length;
  const from = seconds(startText);
  if (from === null) return { line: lineNumber, column: startColumn, message: `"${startText}" is not a WebVTT timestamp such as 00:01.000 or 00:00:01.000` };
  const to = seconds(endText);
  if (to === null) return { line: lineNumber, column: endColumn, message: `"${endText}" is not a WebVTT timestamp such as 00:01.000 or 00:00:01.000` };
  if (to < from) return { line: lineNumber, column: endColumn, message: `the cue ends (${endText}) before it starts (${startText})` };
  if (rest !== '' && !/^[ \t]/.test(rest)) return { line: lineNumber, column: endColumn + endText.length, message: 'cue settings must be separated from the end time by a space' };
  return null;
}

/** The largest subtitle text the platform takes (5 MB). */
export const MAX_VTT_BYTES = 5 * 1024 * 1024;

/** An ISO 639-2 (bibliographic) language code as the platform spells it: three lowercase letters. */
const languageCode = z.string().regex(/^[a-z]{3}$/, { error: 'must be a 3-letter lowercase ISO 639-2 language code such as eng or ger' });

const vttText = z
  .string()
  .max(MAX_VTT_BYTES, { error: "must be at most 5 MB, the platform's limit" })
  .superRefine((text, ctx) => {
    const problem = checkWebVtt(text);
    if (problem) ctx.addIssue({ code: 'custom', message: `must be WebVTT: line ${problem.line}, column ${problem.column} of the text: ${problem.message}` });
  });

const shape = () =>
  z.strictObject({
    subtitle_id: positiveId.optional().describe('The subtitle id (integer). Omitted: edgeform finds the subtitle by video_id and language, and creates it when there is none.'),
    video_id: positiveId.describe('The video the subtitle belongs to (integer).'),
    language: languageCode.describe("The subtitle's language: a 3-letter ISO 639-2 code (eng, ger, fre, ...)."),
    name: z.string().min(1, { error: 'must not be empty' }).optional().describe("The subtitle's display name; omitted = not managed."),
    vtt: vttText.optional().describe('The subtitles as WebVTT text. Exactly one of vtt and vtt_file.'),
    vtt_file: z
      .string()
      .min(1, { error: 'must not be empty' })
      .describe('A WebVTT file next to the stack (path relative to the stack file, inside its directory), read and checked at validate time. Exactly one of vtt and vtt_file.')
      .optional(),
    ensure: ensureDeletable,
  });

/**
 * streaming_video_subtitle: one subtitle of a video, found by its id or by its video and
 * language (a video may hold one subtitle per language for edgeform to tell them apart), with
 * its WebVTT text inline (`vtt`) or from a file next to the stack (`vtt_file`, which the loader
 * reads into `vtt`). edgeform creates, updates (name, text) and deletes it.
 */
export const streamingVideoSubtitleKind = defineKind({
  type: 'streaming_video_subtitle',
  kind: 'resource',
  description: "A video's subtitle, by id or by video and language, with its WebVTT text inline or from a file; edgeform creates, updates and deletes it.",
  identity: ['subtitle_id', 'video_id', 'language'],
  idField: 'subtitle_id',
  create: { key: ['video_id', 'language'] },
  readable: {
    id: { type: 'number', description: 'The subtitle id (integer).', read: (s) => s.subtitle_id },
    video_id: { type: 'number', description: 'The video the subtitle belongs to.', read: (s) => s.video_id },
    language: { type: 'string', description: 'The subtitle language (ISO 639-2 code).', read: (s) => s.language },
  },
  files: { vtt_file: { into: 'vtt', what: 'a WebVTT file', maxBytes: MAX_VTT_BYTES, check: checkWebVtt } },
  shape,
  schema: (shape) =>
    shape.superRefine((block, ctx) => {
      if (block.vtt !== undefined && block.vtt_file !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['vtt_file'], message: 'must not be set together with vtt: set either the text (vtt) or the file it is in (vtt_file)' });
      } else if (block.vtt === undefined && block.vtt_file === undefined && block.ensure === 'present') {
        ctx.addIssue({
          code: 'custom',
          path: ['vtt'],
          message: 'must be set, or vtt_file: a streaming_video_subtitle needs its WebVTT text, inline (vtt) or from a .vtt file next to the stack (vtt_file)',
        });
      }
    }),
});
