/**
 * `JSON.stringify(value, null, 2)` and a final line break, in chunks of whole lines: the members
 * of objects and the elements of arrays down to `depth` levels are written one by one (deeper
 * values stringified whole), and lines are handed out about `chunkBytes` at a time. Joined, the
 * chunks are exactly that text, so a plan of 175,000 changes is written a change at a time and
 * never built as one string of hundreds of megabytes. Pure.
 */
export function* jsonLines(value: unknown, options: { depth?: number; chunkBytes?: number } = {}): Generator<string> {
  const limit = options.chunkBytes ?? 64 * 1024;
  let pending: string[] = [];
  let size = 0;
  for (const line of members(value, '', '', '', options.depth ?? 2)) {
    pending.push(line);
    size += line.length;
    if (size >= limit) {
      yield pending.join('');
      pending = [];
      size = 0;
    }
  }
  if (pending.length > 0) yield pending.join('');
}

/** Whether JSON.stringify leaves an object member out (and writes an array element as null). */
const omitted = (v: unknown) => v === undefined || typeof v === 'function' || typeof v === 'symbol';

function* members(value: unknown, indent: string, prefix: string, suffix: string, depth: number): Generator<string> {
  const v = value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function' ? (value as { toJSON(): unknown }).toJSON() : value;
  if (depth > 0 && v !== null && typeof v === 'object') {
    const inner = `${indent}  `;
    if (Array.isArray(v) && v.length > 0) {
      yield `${indent}${prefix}[\n`;
      for (let i = 0; i < v.length; i++) yield* members(omitted(v[i]) ? null : v[i], inner, '', i < v.length - 1 ? ',' : '', depth - 1);
      yield `${indent}]${suffix}\n`;
      return;
    }
    const entries = Array.isArray(v) ? [] : Object.entries(v).filter(([, x]) => !omitted(x));
    if (entries.length > 0) {
      yield `${indent}${prefix}{\n`;
      for (let i = 0; i < entries.length; i++) {
        const [key, x] = must(entries[i], 'entries[i]');
        yield* members(x, inner, `${JSON.stringify(key)}: `, i < entries.length - 1 ? ',' : '', depth - 1);
      }
      yield `${indent}}${suffix}\n`;
      return;
    }
  }
  const text = JSON.stringify(v, null, 2) ?? 'null';
  yield `${indent}${prefix}${indent === '' ? text : text.replaceAll('\n', `\n${indent}`)}${suffix}\n`;
}
import { must } from '../errors.js';
