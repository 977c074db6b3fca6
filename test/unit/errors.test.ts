import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  ChangedSincePlanError,
  EdgeformError,
  InconsistentResultError,
  InvariantError,
  must,
  StalePlanError,
  StoppedError,
  TaskFailedError,
  TaskTimeoutError,
} from '../../src/errors.js';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/** The source files of edgeform itself: the emulator stands for the platform and keeps its own errors. */
function* sources(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (relative(SRC, path) !== 'emulator') yield* sources(path);
    } else if (name.endsWith('.ts')) yield path;
  }
}

describe('task errors', () => {
  it('TaskFailedError carries the platform reason', () => {
    const error = new TaskFailedError({ taskId: 't1', taskType: 'resize_vm', error: 'Quota limit for vcpu exceeded' });
    expect(error.code).toBe('EDGEFORM_TASK_FAILED');
    expect(error.message).toBe('task t1 (resize_vm) failed: Quota limit for vcpu exceeded');
  });

  it('TaskTimeoutError carries the elapsed time', () => {
    const error = new TaskTimeoutError({ taskId: 't1', taskType: 'resize_vm', elapsedMs: 1_200_000, lastState: 'RUNNING' });
    expect(error.code).toBe('EDGEFORM_TASK_TIMEOUT');
    expect(error.elapsedMs).toBe(1_200_000);
    expect(error.message).toContain('1200 s');
  });
});

describe('the shared errors', () => {
  it('InconsistentResultError shows the planned and observed fields, or the message a provider gives', () => {
    const error = new InconsistentResultError({ address: 'cloud_instance.web', planned: { flavor_id: 'b' }, observed: { flavor_id: 'a' } });
    expect(error.code).toBe('EDGEFORM_INCONSISTENT_RESULT');
    expect(error.message).toBe(
      'inconsistent result after apply: cloud_instance.web still does not show the planned result.\n  planned:  {"flavor_id":"b"}\n  observed: {"flavor_id":"a"}',
    );
    expect(new InconsistentResultError('the cluster still reads v1.30').message).toBe('the cluster still reads v1.30');
  });

  it('a change made stale since the plan is a stale plan, with its stable code', () => {
    const error = new ChangedSincePlanError({ address: 'cloud_instance.web', differences: ['flavor_id: "a" when planned, now "c"'] }, { taskId: 't1', seen: 'at-apply' });
    expect(error).toBeInstanceOf(StalePlanError);
    expect(error.code).toBe('EDGEFORM_STALE_PLAN');
    expect(error.message.split('\n')[0]).toBe('cloud_instance.web changed while platform task t1 held its lock, so the planned change was not sent:');
  });

  it('StoppedError names a multi-step change the interrupt stopped between steps', () => {
    const error = new StoppedError('stopped at v1.30.6');
    expect(error).toBeInstanceOf(EdgeformError);
    expect(error.code).toBe('EDGEFORM_STOPPED');
  });
});

describe('must: a value the code knows is there', () => {
  it('gives the value back, falsy ones included, and throws a bug (not an EdgeformError) naming what is missing', () => {
    expect(must(0, 'a count')).toBe(0);
    expect(must('', 'a text')).toBe('');
    expect(must(new Map([['a', 1]]).get('a'), 'the entry a')).toBe(1);
    expect(() => must(new Map<string, number>().get('a'), 'the entry a')).toThrow(new InvariantError('edgeform bug: the entry a is missing'));
    expect(() => must(null, 'x')).toThrow(InvariantError);
    let error: unknown;
    try {
      must(undefined, 'x');
    } catch (e) {
      error = e;
    }
    expect(error).not.toBeInstanceOf(EdgeformError);
  });
});

describe('one error taxonomy', () => {
  it('declares every error class of edgeform in src/errors.ts or src/api/errors.ts', () => {
    const elsewhere = [...sources(SRC)]
      .map((file) => relative(SRC, file))
      .filter((file) => file !== 'errors.ts' && file !== join('api', 'errors.ts'))
      .filter((file) => /\bclass\s+\w+\s+extends\s+\w*Error\b/.test(readFileSync(join(SRC, file), 'utf8')));
    expect(elsewhere).toEqual([]);
  });

  it('recognises errors by class, never by comparing an EDGEFORM_ code string', () => {
    const offenders = [...sources(SRC)].flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .map((line, i) => ({ line, at: `${relative(SRC, file)}:${i + 1}` }))
        .filter(({ line }) => /\bcode\s*[!=]==?\s*['"`]EDGEFORM_|['"`]EDGEFORM_\w+['"`]\s*[!=]==?\s*\w*\.?code\b/.test(line))
        .map(({ at }) => at),
    );
    expect(offenders).toEqual([]);
  });
});
