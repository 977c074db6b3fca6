import type { ServerResponse } from 'node:http';

/** A 2xx answer of a shape the platform should never send, as a fake platform gives it. */
export type HostileAnswer =
  /** JSON of the wrong shape (`{}`, `null`, `[]`, wrong field types), sent as application/json. */
  | { kind: 'json'; body: unknown }
  /** Any text with any content type (an empty body, an HTML page). */
  | { kind: 'raw'; contentType: string; text: string }
  /**
   * A JSON object of `bytes` bytes, generated while it is written (64 KiB at a time, waiting for
   * the socket to drain), so no test holds it in memory; with or without a Content-Length.
   */
  | { kind: 'huge'; bytes: number; declareLength: boolean };

/** The shapes every answer is tried with, by name; `huge` sizes are chosen per test. */
export const HOSTILE_SHAPES: Readonly<Record<string, HostileAnswer>> = {
  'an empty object {}': { kind: 'json', body: {} },
  null: { kind: 'json', body: null },
  'an empty array []': { kind: 'json', body: [] },
  'an empty body': { kind: 'raw', contentType: 'application/json', text: '' },
  'an HTML page (200 text/html)': {
    kind: 'raw',
    contentType: 'text/html; charset=utf-8',
    text: '<!DOCTYPE html><html><head><title>Maintenance</title></head><body><h1>Back soon</h1></body></html>',
  },
};

/** 1 MiB. */
export const MiB = 1024 * 1024;

/** How writing a `huge` answer ended: every byte written, or the client closed the connection first. */
export type HugeOutcome = 'finished' | 'closed-early';

const FILLER = Buffer.alloc(64 * 1024, 'x');

/**
 * Writes a 200 answer. For a `huge` one, resolves once writing ended: `closed-early` means the
 * client closed the connection before the body was written in full, i.e. it stopped reading.
 */
export function writeHostileAnswer(res: ServerResponse, answer: HostileAnswer): Promise<HugeOutcome> {
  if (answer.kind === 'json') {
    const text = JSON.stringify(answer.body);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
    return Promise.resolve('finished');
  }
  if (answer.kind === 'raw') {
    res.writeHead(200, { 'content-type': answer.contentType, 'content-length': Buffer.byteLength(answer.text) });
    res.end(answer.text);
    return Promise.resolve('finished');
  }
  return new Promise<HugeOutcome>((resolve) => {
    const head = Buffer.from('{"pad":"');
    const tail = Buffer.from('"}');
    res.writeHead(200, { 'content-type': 'application/json', ...(answer.declareLength ? { 'content-length': String(answer.bytes) } : {}) });
    let left = answer.bytes - head.length - tail.length;
    let done = false;
    res.on('close', () => {
      if (!done) resolve('closed-early');
    });
    res.on('error', () => undefined);
    res.write(head);
    const pump = (): void => {
      while (left > 0) {
        if (res.destroyed) return;
        const n = Math.min(left, FILLER.length);
        left -= n;
        if (!res.write(n === FILLER.length ? FILLER : FILLER.subarray(0, n))) {
          res.once('drain', pump);
          return;
        }
      }
      res.end(tail, () => {
        done = true;
        resolve('finished');
      });
    };
    pump();
  });
}
