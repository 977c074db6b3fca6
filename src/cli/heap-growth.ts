import { setFlagsFromString } from 'node:v8';

/** From this input size on (the stack files and the files they name), the heap's growth is bounded. */
export const BOUNDED_HEAP_FROM_BYTES = 1024 * 1024;

/**
 * How much V8 lets the heap grow past what its last full collection found alive, in per cent,
 * once the input is large. V8's own factor (up to 4 × when collections are cheap against the
 * allocation rate) is right for short runs on small inputs; on a zone file of 174,145 record sets
 * it let `validate` peak at three times what it keeps alive.
 */
export const HEAP_GROWING_PERCENT = 10;

/**
 * The mark the executable (cmd/edgeform.ts) sets on `globalThis` before it loads the command
 * line: only its own process bounds its heap's growth, never a test that runs the CLI
 * in-process, whose process the setting would outlive.
 */
export const EXECUTABLE_MARK = Symbol.for('edgeform.executable');

let bounded = false;

/**
 * Given the size of a command's input once it is read: from BOUNDED_HEAP_FROM_BYTES on, and when
 * in the executable's own process, V8 grows the heap by HEAP_GROWING_PERCENT over the live set after
 * each full collection (`--heap-growing-percent`) instead of its own, larger factor, for the rest
 * of the run. It is not a limit: a run whose live set is larger still finishes, with more frequent
 * collections (CPU traded for peak memory). Returns whether the bound is in force.
 */
export function boundHeapGrowth(inputBytes: number): boolean {
  if (!bounded && Reflect.get(globalThis, EXECUTABLE_MARK) === true && inputBytes >= BOUNDED_HEAP_FROM_BYTES) {
    setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
    bounded = true;
  }
  return bounded;
}
