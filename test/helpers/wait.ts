/** Options of {@link waitFor}. */
export interface WaitForOptions {
  /** Upper bound before giving up (real ms); default 10 s. */
  timeoutMs?: number;
  /** Pause between checks (real ms); default 5. */
  intervalMs?: number;
  /** Named in the timeout error. */
  what?: string;
}

/**
 * Polls a condition until it holds and returns its truthy value: how tests wait for the system
 * under test to reach a state (a request seen, a line printed) instead of sleeping for a guess.
 * Rejects when the bound passes, naming what was awaited.
 */
export async function waitFor<T>(condition: () => T | Promise<T>, options: WaitForOptions = {}): Promise<NonNullable<T>> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  for (;;) {
    const value = await condition();
    if (value !== undefined && value !== null && value !== false) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${options.what ?? 'a condition'}`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 5));
  }
}
