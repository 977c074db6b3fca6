import { describe, expect, it } from 'vitest';
import { createPlan } from '../../../src/kinds/create.js';
import type { ProviderPlan, ReadResult } from '../../../src/kinds/provider.js';
import { buildPlan, observedFields, type ResourcePlanners } from '../../../src/plan/planner.js';
import { checkBlock, resource, stackOf } from '../../helpers/stack.js';

/**
 * What the planner says of blocks it cannot plan, of --resend-sensitive, follow-ups and destroy
 * notes, with a stand-in fastedge_app: `comment` updates in place; a block declaring `secret`
 * sends a sensitive value (sent again with --resend-sensitive); the kind plans a follow-up when
 * the block sets `purge`, and notes what a destroy takes with it.
 */
const planners = (() => {
  const plan = (desired: Record<string, unknown>, state: Record<string, unknown>, options: { resendSensitive?: boolean } = {}): ProviderPlan => {
    const before = { app_id: state.app_id, comment: state.comment };
    const commented = desired.comment !== undefined && desired.comment !== state.comment;
    const resend = options.resendSensitive === true && desired.secret !== undefined;
    return {
      action: commented || resend ? 'update' : 'no-op',
      before,
      after: { ...before, comment: desired.comment ?? state.comment },
      changes: commented ? [{ path: ['comment'], op: 'update', before: state.comment, after: desired.comment }] : [],
      ...(commented || resend ? { payload: { comment: desired.comment } } : {}),
      ...(desired.secret !== undefined ? { sensitive: [{ path: ['secret'], env: 'SECRET' }] } : {}),
      errors: [],
      warnings: [],
      notes: [],
    };
  };
  const app = {
    idField: 'app_id',
    summarize: (state: Record<string, unknown>) => ({ app_id: state.app_id, comment: state.comment }),
    plan,
    destroyNote: (state: Record<string, unknown>) => (state.binaries === undefined ? undefined : `its ${String(state.binaries)} binaries go with it`),
    followUp: {
      plan: (desired: Record<string, unknown>, _observed: unknown, action: string) =>
        desired.purge === undefined ? null : { step: 'purge', summary: `purge after ${action}`, changes: [], notes: [], payload: { paths: [desired.purge] } },
    },
    create: {
      plan: (desired: Record<string, unknown>) => createPlan({ name: desired.name }, 'app_id', { name: desired.name }),
      identity: () => 'name',
    },
  };
  return { fastedge_app: app } as unknown as ResourcePlanners;
})();

const app = (name: string, attributes: Record<string, unknown> = {}, dependsOn: string[] = []) =>
  resource('fastedge_app', name, { ensure: 'present', name, binary: 7, ...attributes } as never, dependsOn);
const found = (state: Record<string, unknown>): ReadResult => ({ ok: true, observation: { exists: true, state: { app_id: 1, comment: 'c', ...state } } });

function plan(blocks: Parameters<typeof stackOf>[0], reads: Record<string, ReadResult>, options: { resend?: string[]; checks?: Parameters<typeof stackOf>[1] } = {}) {
  return buildPlan({
    stack: stackOf(blocks, options.checks ?? []),
    reads: new Map(Object.entries(reads)),
    checks: new Map(),
    planners,
    baseUrl: 'http://127.0.0.1:1',
    createdAt: '2026-01-01T00:00:00.000Z',
    edgeformVersion: '0.0.0',
    ...(options.resend ? { resendSensitive: new Set(options.resend) } : {}),
  });
}
const problems = (p: ReturnType<typeof plan>) => p.diagnostics.map((d) => [d.severity, d.code, d.summary, d.address]);

describe('buildPlan, blocks it cannot plan', () => {
  it('names a block that was not read and a check with no outcome, and plans the rest', () => {
    const gate = checkBlock('streaming_ai_tasks', 'gate', { max_count: 0 } as never);
    const p = plan([app('a'), app('b')], { 'fastedge_app.b': found({}) }, { checks: [gate] });
    expect(problems(p)).toEqual([
      ['error', 'plan-error', 'fastedge_app.a was not read', 'fastedge_app.a'],
      ['error', 'plan-error', 'check streaming_ai_tasks.gate could not be evaluated: the check was not evaluated', 'streaming_ai_tasks.gate'],
    ]);
    expect(p.resource_changes.map((c) => c.address)).toEqual(['fastedge_app.b']);
    expect(p.checks.map((c) => [c.address, c.status])).toEqual([['streaming_ai_tasks.gate', 'error']]);
    expect([p.errored, p.applyable]).toEqual([true, false]);
  });
});

describe('buildPlan and --resend-sensitive', () => {
  it('sends the sensitive values of a block again, as an update', () => {
    const change = plan([app('a', { secret: '${env:SECRET}' })], { 'fastedge_app.a': found({}) }, { resend: ['fastedge_app.a'] }).resource_changes[0]!;
    expect([change.action, change.resend_sensitive]).toEqual(['update', true]);
  });

  it('refuses a block that sends none, a deleted one, and an address the stack does not declare; a create sends them anyway', () => {
    const p = plan(
      [app('a'), app('gone', { ensure: 'absent' }), app('new', { secret: '${env:SECRET}' })],
      { 'fastedge_app.a': found({}), 'fastedge_app.gone': found({}), 'fastedge_app.new': { ok: true, observation: { exists: false } } },
      {
        resend: ['fastedge_app.a', 'fastedge_app.gone', 'fastedge_app.new', 'fastedge_app.nope'],
      },
    );
    expect(problems(p)).toEqual([
      ['error', 'plan-error', 'fastedge_app.a: --resend-sensitive names it, but it sends no sensitive values (its block declares none)', 'fastedge_app.a'],
      ['error', 'plan-error', 'fastedge_app.gone: --resend-sensitive names it, but it sends no sensitive values (it is deleted)', 'fastedge_app.gone'],
      ['error', 'unknown-target', '--resend-sensitive fastedge_app.nope: the stack declares no such resource', undefined],
    ]);
  });
});

describe('buildPlan, what a change carries besides its action', () => {
  it("carries the kind's follow-up, which makes a plan of no-ops applyable, but none on a delete", () => {
    const p = plan([app('a', { purge: '/*' }), app('b')], { 'fastedge_app.a': found({}), 'fastedge_app.b': found({}) });
    expect(p.resource_changes.map((c) => [c.address, c.action, c.follow_up?.summary])).toEqual([
      ['fastedge_app.a', 'no-op', 'purge after no-op'],
      ['fastedge_app.b', 'no-op', undefined],
    ]);
    expect(p.applyable).toBe(true);
    expect(plan([app('b')], { 'fastedge_app.b': found({}) }).applyable).toBe(false);
    const deleted = plan([app('a', { purge: '/*', ensure: 'absent' })], { 'fastedge_app.a': found({}) }).resource_changes[0]!;
    expect([deleted.action, deleted.follow_up]).toEqual(['delete', undefined]);
  });

  it("carries the kind's note of what a destroy takes with it, only where the kind has one", () => {
    const gone = (state: Record<string, unknown>) => plan([app('a', { ensure: 'absent' })], { 'fastedge_app.a': found(state) }).resource_changes[0]!;
    expect(gone({ binaries: 3 }).destroy_note).toBe('its 3 binaries go with it');
    expect(gone({})).not.toHaveProperty('destroy_note');
  });

  it('warns of a running task that locks a resource, and of a failing check it depends on', () => {
    const gate = checkBlock('streaming_ai_tasks', 'gate', { max_count: 0 } as never);
    const p = buildPlan({
      stack: stackOf([app('a', {}, ['streaming_ai_tasks.gate'])], [gate]),
      reads: new Map([['fastedge_app.a', { ok: true, observation: { exists: true, state: { app_id: 1, comment: 'c' }, lockTaskId: 't-1' } }]]),
      checks: new Map([['streaming_ai_tasks.gate', { status: 'fail', message: 'too many' }]]),
      planners,
      baseUrl: 'http://127.0.0.1:1',
      createdAt: '2026-01-01T00:00:00.000Z',
      edgeformVersion: '0.0.0',
    });
    expect(p.resource_changes[0]!.warnings).toEqual([
      'locked by running platform task t-1; apply waits for it to finish before changing anything',
      'depends on check streaming_ai_tasks.gate, which is failing; apply will skip this resource',
    ]);
    expect(p.resource_changes[0]!.lock_task_id).toBe('t-1');
  });
});

describe('buildPlan, the rest of what a plan says', () => {
  const gate = checkBlock('streaming_ai_tasks', 'gate', { max_count: 0 } as never);
  const withChecks = (outcomes: Record<string, { status: 'pass' | 'fail' | 'error'; message: string }>, blocks = [app('a', {}, ['streaming_ai_tasks.gate'])]) =>
    buildPlan({
      stack: stackOf(blocks, [gate]),
      reads: new Map(blocks.map((b) => [b.address, found({})])),
      checks: new Map(Object.entries(outcomes)),
      planners,
      baseUrl: 'http://127.0.0.1:1',
      createdAt: '2026-01-01T00:00:00.000Z',
      edgeformVersion: '0.0.0',
    });

  it('warns of a check that could not be evaluated, and says nothing of one that passes', () => {
    expect(withChecks({ 'streaming_ai_tasks.gate': { status: 'error', message: 'HTTP 500' } }).resource_changes[0]!.warnings).toEqual([
      'depends on check streaming_ai_tasks.gate, which could not be evaluated; apply will skip this resource',
    ]);
    const passing = withChecks({ 'streaming_ai_tasks.gate': { status: 'pass', message: 'ok' } });
    expect([passing.resource_changes[0]!.warnings, passing.diagnostics, passing.checks.map((c) => c.action)]).toEqual([[], [], ['read']]);
  });

  it('keeps the diagnostics found before reading (an unknown --target), which make it errored', () => {
    const p = buildPlan({
      stack: stackOf([app('a')]),
      reads: new Map([['fastedge_app.a', found({})]]),
      checks: new Map(),
      planners,
      baseUrl: 'http://127.0.0.1:1',
      createdAt: '2026-01-01T00:00:00.000Z',
      edgeformVersion: '0.0.0',
      diagnostics: [{ severity: 'error', code: 'unknown-target', summary: '--target fastedge_app.nope: no such block' }],
    });
    expect([p.errored, p.diagnostics.map((d) => d.code)]).toEqual([true, ['unknown-target']]);
  });

  it('counts creates as adds, and a plan that only deletes is applyable', () => {
    const deletes = plan([app('a', { ensure: 'absent' })], { 'fastedge_app.a': found({}) });
    expect([deletes.summary, deletes.applyable]).toEqual([{ add: 0, change: 0, destroy: 1, read: 0 }, true]);
    const creates = plan([app('new')], { 'fastedge_app.new': { ok: true, observation: { exists: false } } });
    expect([creates.summary, creates.applyable]).toEqual([{ add: 1, change: 0, destroy: 0, read: 0 }, true]);
  });

  it('names the stack in its record only when the stack has a name', () => {
    const named = buildPlan({
      stack: { ...stackOf([]), name: 'prod' },
      reads: new Map(),
      checks: new Map(),
      planners,
      baseUrl: 'http://127.0.0.1:1',
      createdAt: '2026-01-01T00:00:00.000Z',
      edgeformVersion: '0.0.0',
    });
    expect([named.stack.name, Object.keys(plan([], {}).stack)]).toEqual(['prod', ['sources', 'digest']]);
  });

  it('carries the identity a resource was found by, or for a create the one it will be found by', () => {
    const byName = plan([app('a')], { 'fastedge_app.a': { ok: true, observation: { exists: true, state: { app_id: 1, comment: 'c' }, foundBy: 'name "a"' } } });
    expect(byName.resource_changes[0]!.identity).toBe('name "a"');
    expect(plan([app('a')], { 'fastedge_app.a': { ok: true, observation: { exists: false } } }).resource_changes[0]!.identity).toBe('name');
  });
});

describe('observedFields (what apply fingerprints again before it acts)', () => {
  // A kind whose summary of a resource (what a delete shows) differs from its diff's before.
  const kind = {
    summarize: (state: Record<string, unknown>) => ({ summary: state.app_id }),
    plan: (desired: Record<string, unknown>, state: Record<string, unknown>) => ({ before: { diffed: state.app_id, comment: desired.comment } }),
  } as unknown as Parameters<typeof observedFields>[0];

  it("is the kind's summary of a resource to delete, the diff's before otherwise, and null for what does not exist", () => {
    const observed = { exists: true as const, state: { app_id: 1 } };
    expect(observedFields(kind, { ensure: 'absent' } as never, observed)).toEqual({ summary: 1 });
    expect(observedFields(kind, { ensure: 'present', comment: 'd' } as never, observed)).toEqual({ diffed: 1, comment: 'd' });
    expect(observedFields(kind, { ensure: 'present' } as never, { exists: false })).toBeNull();
  });
});
