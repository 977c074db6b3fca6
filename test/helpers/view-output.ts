import type { ViewOutput } from '../../src/render/view.js';

/**
 * A view's output that keeps what it writes: each `out` call as one entry of `lines` (views
 * write a line or a block per call), each `err` call in `errors`. Colour off unless asked for.
 */
export function writingTo(lines: string[], options: { color?: boolean; errors?: string[] } = {}): ViewOutput {
  return {
    color: options.color ?? false,
    out: (text) => void lines.push(text),
    err: (text) => void (options.errors ?? lines).push(text),
  };
}
