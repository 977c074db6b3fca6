import { describe, expect, it } from 'vitest';
import { DEFAULT_TASK_POLL_SCHEDULE } from '../../../src/api/tasks.js';
import { checkMaxTasks, checkParallelism, DEFAULT_MAX_TASKS, DEFAULT_PROGRESS_INTERVAL_MS, pollScheduleFromEnv, progressIntervalFromEnv } from '../../../src/cli/plan-stack.js';
import { UsageError } from '../../../src/errors.js';

describe('--parallelism and --max-tasks', () => {
  it.each([0, -1, 1.5, 101, Number.NaN])('refuses --parallelism %s', (n) => {
    expect(() => checkParallelism(n)).toThrow(
      new UsageError(`--parallelism must be a whole number from 1 to 100, got ${Number.isNaN(n) ? 'a value that is not a number' : String(n)}`),
    );
  });

  it.each([0, -3, 2.5, 1001, Number.NaN])('refuses --max-tasks %s', (n) => {
    expect(() => checkMaxTasks(n)).toThrow(
      new UsageError(`--max-tasks must be a whole number from 1 to 1000, got ${Number.isNaN(n) ? 'a value that is not a number' : String(n)}`),
    );
  });

  it('accepts every whole number in range, the default of --max-tasks (500) included', () => {
    for (const n of [1, 10, 100]) expect(() => checkParallelism(n)).not.toThrow();
    for (const n of [1, DEFAULT_MAX_TASKS, 1000]) expect(() => checkMaxTasks(n)).not.toThrow();
    expect(DEFAULT_MAX_TASKS).toBe(500);
  });
});

describe('EDGEFORM_TASK_POLL_INTERVAL', () => {
  it('keeps the default schedule when unset or empty', () => {
    expect(pollScheduleFromEnv({})).toBeUndefined();
    expect(pollScheduleFromEnv({ EDGEFORM_TASK_POLL_INTERVAL: '' })).toBeUndefined();
  });

  it('sets the longest wait between polls, the shortest never longer than it', () => {
    expect(pollScheduleFromEnv({ EDGEFORM_TASK_POLL_INTERVAL: '20' })).toEqual({ ...DEFAULT_TASK_POLL_SCHEDULE, initialMs: 20, maxMs: 20 });
    expect(pollScheduleFromEnv({ EDGEFORM_TASK_POLL_INTERVAL: '60000' })).toEqual({ ...DEFAULT_TASK_POLL_SCHEDULE, initialMs: 150, maxMs: 60_000 });
  });

  it.each(['abc', '5', '1.5', '600001'])('refuses %s', (value) => {
    expect(() => pollScheduleFromEnv({ EDGEFORM_TASK_POLL_INTERVAL: value })).toThrow(UsageError);
  });
});

describe('EDGEFORM_PROGRESS_INTERVAL', () => {
  it('is 10 s unless set, and the milliseconds it says when set', () => {
    expect(DEFAULT_PROGRESS_INTERVAL_MS).toBe(10_000);
    expect(progressIntervalFromEnv({})).toBe(10_000);
    expect(progressIntervalFromEnv({ EDGEFORM_PROGRESS_INTERVAL: '' })).toBe(10_000);
    expect(progressIntervalFromEnv({ EDGEFORM_PROGRESS_INTERVAL: '1000' })).toBe(1000);
  });

  it.each(['abc', '99', '1.5', '3600001'])('refuses %s as a usage error', (raw) => {
    expect(() => progressIntervalFromEnv({ EDGEFORM_PROGRESS_INTERVAL: raw })).toThrow(
      new UsageError(`EDGEFORM_PROGRESS_INTERVAL must be a whole number of milliseconds from 100 to 3600000, got "${raw}"`),
    );
  });
});
