import { describe, expect, it } from 'vitest';
import { checkWebVtt } from '../../../src/kinds/streaming-video-subtitle/schema.js';

describe('checkWebVtt: what counts as WebVTT', () => {
  it.each([
    ['a minimal file', 'WEBVTT\n'],
    ['a file with a title, a cue id, settings and hour timestamps', 'WEBVTT - Keynote\n\n1\n01:00:01.000 --> 01:00:04.500 line:0 align:start\nHello\n'],
    ['short timestamps, CRLF line ends and a byte order mark', '\uFEFFWEBVTT\r\n\r\n00:01.000 --> 00:04.000\r\nHello\r\n'],
    ['NOTE, STYLE and REGION blocks', 'WEBVTT\n\nNOTE a comment\n\nSTYLE\n::cue { color: red }\n\nREGION\nid:fred\n\n00:01.000 --> 00:02.000\nHi\n'],
    ['a cue of zero length', 'WEBVTT\n\n00:01.000 --> 00:01.000\nflash\n'],
  ])('accepts %s', (_what, text) => {
    expect(checkWebVtt(text)).toBeNull();
  });

  it.each([
    ['an SRT file (no signature)', '1\n00:00:01,000 --> 00:00:04,000\nHallo\n', { line: 1, column: 1 }, 'starts with the line "WEBVTT"'],
    ['a signature not alone on its line', 'WEBVTTX\n', { line: 1, column: 1 }, 'starts with the line "WEBVTT"'],
    ['a comma before the milliseconds', 'WEBVTT\n\n1\n00:00:01.000 --> 00:00:04,000\nHallo\n', { line: 4, column: 18 }, '"00:00:04,000" is not a WebVTT timestamp'],
    ['minutes past 59', 'WEBVTT\n\n00:61.000 --> 01:02.000\nx\n', { line: 3, column: 1 }, '"00:61.000" is not a WebVTT timestamp'],
    ['a cue that ends before it starts', 'WEBVTT\n\n00:05.000 --> 00:04.000\nx\n', { line: 3, column: 15 }, 'the cue ends (00:04.000) before it starts (00:05.000)'],
    ['an arrow without spaces', 'WEBVTT\n\n00:01.000-->00:04.000\nx\n', { line: 3, column: 1 }, 'with spaces around the arrow'],
    ['a cue id without a timing line', 'WEBVTT\n\n1\n00:01.000 -> 00:04.000\nx\n', { line: 3, column: 1 }, 'a cue needs a timing line'],
    ['a cue right after the header', 'WEBVTT\n00:01.000 --> 00:04.000\nx\n', { line: 2, column: 1 }, 'a blank line must separate'],
  ])('refuses %s, at its line and column', (_what, text, at, message) => {
    const problem = checkWebVtt(text);
    expect(problem).toMatchObject(at);
    expect(problem!.message).toContain(message);
  });
});
