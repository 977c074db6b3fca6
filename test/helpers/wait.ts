/** Options of {@link waitFor}. */
export interface WaitForOptions {
  /**
   * Upper bound before giving up (real ms); default none: a condition that never holds is a hang,
   * which vitest's backstop timeout ends, so no test fails because a busy machine was slow.
   */
  timeoutMs?: number;
  /** Pause between checks (real ms); default 5. */
  intervalMs?: number;
  /** Named in the timeout error. */
  what?: string;
}

/**
 * Polls a condition until it holds and returns its truthy value: how tests wait for the system
 * under test to reach a state (a request seen, a line printed) instead of sleeping for a guess.
 * Rejects when a bound given passes, naming what was awaited.
 */
export async function waitFor<T>(condition: () => T | Promise<T>, options: WaitForOptions = {}): Promise<NonNullable<T>> {
  const deadline = Date.now() + (options.timeoutMs ?? Number.POSITIVE_INFINITY);
  for (;;) {
    const value = await condition();
    if (value !== undefined && value !== null && value !== false) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${options.what ?? 'a condition'}`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 5));
  }
}
