/**
 * Waiting that an AbortSignal can cut short. Injected into the client and the task poller so
 * tests record delays instead of spending wall-clock time.
 */

/** Waits ms milliseconds, or rejects with the signal's reason as soon as it aborts. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** The real-time {@link Sleep}. */
export const sleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(must(signal, 'signal')));
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** The error an aborted signal stands for: its reason, or a standard AbortError. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/** Whether an error is an abort (AbortError DOMException or anything named AbortError). */
export function isAbortError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'AbortError';
}
import { must } from '../errors.js';
