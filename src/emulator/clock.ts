/** The instant a manual emulator clock starts at: 2026-01-01T00:00:00Z. */
export const MANUAL_CLOCK_START = Date.UTC(2026, 0, 1, 0, 0, 0);

/**
 * The emulator's notion of time. Task states and read lag are derived from it on every
 * read, so a test moves time with `advance` instead of sleeping.
 */
export interface EmulatorClock {
  /** Milliseconds since the epoch, as the emulator sees it. */
  now(): number;
  /** Moves the clock forward by `ms` (≥ 0) and settles every task that became due. */
  advance(ms: number): void;
}

/**
 * Creates a clock: `Date.now() + offset` by default, or fully manual (starting at
 * MANUAL_CLOCK_START and moving only through `advance`). It never goes back, even when the
 * system clock does (tasks settle once their finish time is reached and must stay finished).
 * `onAdvance` runs after each move; `rewind` puts the clock back to its start.
 */
export function createClock(options: { manual?: boolean; onAdvance?: (now: number) => void } = {}): EmulatorClock & { rewind(): void } {
  let offset = 0;
  let manualNow = MANUAL_CLOCK_START;
  let latest = Number.NEGATIVE_INFINITY;
  const manual = options.manual === true;
  const clock: EmulatorClock & { rewind(): void } = {
    now: manual
      ? () => manualNow
      : () => {
          latest = Math.max(latest, Date.now() + offset);
          return latest;
        },
    advance(ms: number): void {
      if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`clock.advance needs a finite number of milliseconds ≥ 0, got ${ms}`);
      if (manual) manualNow += ms;
      else offset += ms;
      options.onAdvance?.(clock.now());
    },
    /** Back to the start: offset 0, or MANUAL_CLOCK_START for a manual clock (used by emulator.reset(), which reloads the state too). */
    rewind(): void {
      offset = 0;
      manualNow = MANUAL_CLOCK_START;
      latest = Number.NEGATIVE_INFINITY;
    },
  };
  return clock;
}
