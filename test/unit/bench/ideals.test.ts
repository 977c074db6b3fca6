import { describe, expect, it } from 'vitest';
import { createsIdealMs, type CreatesWorld } from '../../../bench/ideals.js';

const base: CreatesWorld = { creates: 1_000, taskCreates: 0, taskMs: 0, listPages: 1, latencyMs: 20, parallelism: 10, maxTasks: 200, startupMs: 60 };

describe('the ideal wall of an apply of creates', () => {
  it('is start-up, the plan read and N·L/P when the creates start no task', () => {
    expect(createsIdealMs(base)).toBe(60 + 20 + 2_000);
  });

  it("reads the plan's list pages P at a time", () => {
    expect(createsIdealMs({ ...base, listPages: 50 })).toBe(60 + 5 * 20 + 2_000);
  });

  it('adds one task to N·L/P when the task slots do not bind', () => {
    expect(createsIdealMs({ ...base, creates: 1_480, taskCreates: 480, taskMs: 500, listPages: 2 })).toBe(60 + 20 + 500 + 2_960);
  });

  it('is bounded by the rounds of task slots when they bind', () => {
    // 1,000 tasks over 200 slots: 5 rounds of the task and four requests (read, create, poll, confirm).
    expect(createsIdealMs({ ...base, taskCreates: 1_000, taskMs: 500 })).toBe(60 + 20 + 5 * (500 + 80));
    expect(createsIdealMs({ ...base, taskCreates: 1_000, taskMs: 500, maxTasks: 1_000 })).toBe(60 + 20 + 500 + 2_000);
  });
});
