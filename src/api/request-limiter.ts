/**
 * The bound on requests in flight to the platform (--parallelism). A request holds a slot only
 * while it is on the wire: waits (retry backoff, task poll intervals, waiting on a platform task)
 * hold none. Urgent requests (task polls, whose answers free the work waiting on them) go ahead
 * of the others waiting for a slot. p-limit would do for one FIFO queue; the two classes are
 * what it lacks.
 */

/** A slot held by one request; release it exactly once, when the request is done. */
export type Release = () => void;

/** Requests in flight at most `concurrency` at once, urgent ones first in the queue. */
export interface RequestLimiter {
  /** Resolves with a slot, at once when one is free, else when one is released (urgent waiters first, then in arrival order). */
  acquire(urgent?: boolean): Promise<Release>;
  /** Slots held now. */
  readonly active: number;
  /** Requests waiting for a slot. */
  readonly queued: number;
  readonly concurrency: number;
}

/**
 * Creates a limiter of `concurrency` slots (a whole number ≥ 1). A waiter is not removed when its
 * request is aborted: it gets its slot in turn and gives it back at once, which is immediate since
 * an abort also ends the requests in flight that share its signal.
 */
export function createRequestLimiter(concurrency: number): RequestLimiter {
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`request concurrency must be a whole number ≥ 1, got ${String(concurrency)}`);
  let active = 0;
  const urgentQueue: Array<() => void> = [];
  const normalQueue: Array<() => void> = [];

  const release = (): void => {
    const next = urgentQueue.shift() ?? normalQueue.shift();
    if (next) next();
    else active -= 1;
  };
  const slot = (): Release => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      release();
    };
  };

  return {
    acquire(urgent = false) {
      if (active < concurrency) {
        active += 1;
        return Promise.resolve(slot());
      }
      // The releasing request hands its slot straight to this waiter: `active` stays the same.
      return new Promise<Release>((resolve) => (urgent ? urgentQueue : normalQueue).push(() => resolve(slot())));
    },
    get active() {
      return active;
    },
    get queued() {
      return urgentQueue.length + normalQueue.length;
    },
    concurrency,
  };
}
