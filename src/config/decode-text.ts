import { isUtf8 } from 'node:buffer';

/** A stack file's bytes as text, or why they are not a UTF-8 text file. */
export type DecodedText =
  | { ok: true; text: string }
  | {
      ok: false;
      /** What the bytes are: "UTF-16LE", "UTF-32BE", "binary", "invalid UTF-8". */
      encoding: string;
      summary: string;
      detail: string;
      /** Where the problem is (1-based; columns in characters of the line); the start for a whole-file problem. */
      position: { line: number; column: number };
    };

const BOMS: ReadonlyArray<readonly [string, readonly number[]]> = [
  ['UTF-32BE', [0x00, 0x00, 0xfe, 0xff]],
  ['UTF-32LE', [0xff, 0xfe, 0x00, 0x00]],
  ['UTF-16BE', [0xfe, 0xff]],
  ['UTF-16LE', [0xff, 0xfe]],
];

const START = { line: 1, column: 1 };
const SAVE_AS_UTF8 = 'Stack files are UTF-8 text; save it as UTF-8 (for example: iconv -f UTF-16 -t UTF-8 stack.yaml > stack-utf8.yaml).';

/**
 * Decodes a stack file, which must be UTF-8 text (YAML also allows UTF-16 and UTF-32; edgeform
 * does not, so a file saved as UTF-16 by an editor gets a clear error rather than a parse of
 * NUL-riddled text). A UTF-8 byte order mark is dropped. A UTF-16/32 byte order mark names
 * that encoding; NUL bytes name UTF-16 when they alternate like it, else a binary file;
 * anything else that is not UTF-8 is placed at its first bad byte. Never returns text with
 * replacement characters standing for bytes it could not read.
 */
export function decodeStackText(bytes: Uint8Array): DecodedText {
  for (const [encoding, bom] of BOMS) {
    if (bom.every((b, i) => bytes[i] === b)) {
      return {
        ok: false,
        encoding,
        summary: `the file is encoded as ${encoding} (it starts with a ${encoding} byte order mark); edgeform reads UTF-8 only`,
        detail: SAVE_AS_UTF8,
        position: START,
      };
    }
  }
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const nul = buffer.indexOf(0);
  if (nul !== -1) {
    const utf16 = guessUtf16(buffer);
    if (utf16)
      return {
        ok: false,
        encoding: utf16,
        summary: `the file looks encoded as ${utf16} (every other byte is NUL); edgeform reads UTF-8 only`,
        detail: SAVE_AS_UTF8,
        position: START,
      };
    return {
      ok: false,
      encoding: 'binary',
      summary: 'the file is not text: it contains NUL bytes (a binary file?)',
      detail: 'A stack is a YAML text file; check that the path names the stack and not, say, an archive or an image.',
      position: positionOf(buffer, nul),
    };
  }
  if (!isUtf8(buffer)) {
    const bad = firstInvalidUtf8(buffer);
    const byte = buffer[bad]!.toString(16).padStart(2, '0').toUpperCase();
    return {
      ok: false,
      encoding: 'invalid UTF-8',
      summary: `the file is not valid UTF-8: byte 0x${byte} cannot start or continue a character here`,
      detail: 'Stack files are UTF-8 text; it may be saved as Latin-1 or Windows-1252 (convert it with: iconv -f WINDOWS-1252 -t UTF-8).',
      position: positionOf(buffer, bad),
    };
  }
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  return { ok: true, text: buffer.toString('utf8', start) };
}

/** "UTF-16LE" when NULs sit at odd offsets (ASCII text in UTF-16LE), "UTF-16BE" at even ones. */
function guessUtf16(buffer: Buffer): string | undefined {
  const sample = buffer.subarray(0, 4096);
  if (sample.length < 2) return undefined;
  let even = 0;
  let odd = 0;
  for (let i = 0; i < sample.length; i++) {
    if (sample[i] === 0) {
      if (i % 2 === 0) even += 1;
      else odd += 1;
    }
  }
  const pairs = Math.floor(sample.length / 2);
  if (odd >= pairs * 0.5 && even === 0) return 'UTF-16LE';
  if (even >= pairs * 0.5 && odd === 0) return 'UTF-16BE';
  return undefined;
}

/** The offset of the first byte that is not part of a well-formed UTF-8 sequence (the buffer has one). */
function firstInvalidUtf8(buffer: Buffer): number {
  let i = 0;
  while (i < buffer.length) {
    const b = buffer[i]!;
    const length = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    if (length === 0 || i + length > buffer.length || !isUtf8(buffer.subarray(i, i + length))) return i;
    i += length;
  }
  return i;
}

/** The 1-based line and column (in characters) of a byte offset of UTF-8-ish bytes. */
function positionOf(buffer: Buffer, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = buffer.indexOf(0x0a); i !== -1 && i < offset; i = buffer.indexOf(0x0a, i + 1)) {
    line += 1;
    lineStart = i + 1;
  }
  return { line, column: buffer.toString('utf8', lineStart, offset).length + 1 };
}
