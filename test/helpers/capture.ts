import { Writable } from 'node:stream';

/** A writable stream that keeps what was written, for running the CLI in-process. */
export interface CapturedStream extends Writable {
  isTTY?: boolean;
  text(): string;
}

/** A stream collecting its output; `isTTY` pretends to be a terminal (to test colour decisions). */
export function captureStream(options: { isTTY?: boolean } = {}): CapturedStream {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      text += chunk.toString();
      callback();
    },
  }) as CapturedStream;
  if (options.isTTY !== undefined) stream.isTTY = options.isTTY;
  stream.text = () => text;
  return stream;
}

/**
 * Replaces what changes from run to run in plan output with stable placeholders: the
 * emulator's URL (its port is picked at random) and ISO timestamps of when the plan was made.
 */
export function maskVolatile(text: string, emulatorUrl: string): string {
  return text
    .split(emulatorUrl)
    .join('http://127.0.0.1:<port>')
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, '<timestamp>');
}
