import { describe, expect, it } from 'vitest';
import { cpuMsOfStat } from '../../../bench/processes.js';

describe("a process's CPU time from /proc/PID/stat", () => {
  it('adds utime and stime, in ms at 100 ticks a second', () => {
    const stat = '4242 (node) S 1 4242 4242 0 -1 4194560 5000 0 0 0 123 45 0 0 20 0 11 0 100 1000 100 18446744073709551615';
    expect(cpuMsOfStat(stat)).toBe(1680);
  });

  it('counts its fields after a command name holding spaces and parentheses', () => {
    const stat = '4242 (edgeform (emulator) x) R 1 4242 4242 0 -1 4194560 5000 0 0 0 7 3 0 0 20 0 11 0 100 1000 100 0';
    expect(cpuMsOfStat(stat)).toBe(100);
  });

  it('is undefined for a line it cannot read', () => {
    expect(cpuMsOfStat('garbage')).toBeUndefined();
  });
});
