import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClock, MANUAL_CLOCK_START } from '../../../src/emulator/clock.js';

describe('emulator clock', () => {
  afterEach(() => vi.restoreAllMocks());

  it('never goes back when the system clock does, so a finished task stays finished', () => {
    const now = vi.spyOn(Date, 'now').mockReturnValue(1_000_000);
    const clock = createClock();
    expect(clock.now()).toBe(1_000_000);
    now.mockReturnValue(999_000);
    expect(clock.now()).toBe(1_000_000);
    now.mockReturnValue(1_000_500);
    expect(clock.now()).toBe(1_000_500);
  });

  it('moves forward by advance and back to its start only by rewind (the emulator reset)', () => {
    vi.spyOn(Date, 'now').mockReturnValue(1_000_000);
    const seen: number[] = [];
    const clock = createClock({ onAdvance: (t) => seen.push(t) });
    clock.advance(5_000);
    expect(clock.now()).toBe(1_005_000);
    expect(seen).toEqual([1_005_000]);
    clock.rewind();
    expect(clock.now()).toBe(1_000_000);
  });

  it('a manual clock starts at 2026-01-01 and moves only by advance', () => {
    const clock = createClock({ manual: true });
    expect(clock.now()).toBe(MANUAL_CLOCK_START);
    clock.advance(1_000);
    expect(clock.now()).toBe(MANUAL_CLOCK_START + 1_000);
    clock.rewind();
    expect(clock.now()).toBe(MANUAL_CLOCK_START);
  });
});
