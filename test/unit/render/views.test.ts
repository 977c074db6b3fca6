import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../../src/config/diagnostics.js';
import { buildDriftReport } from '../../../src/plan/drift.js';
import { createApplyView } from '../../../src/render/apply-view.js';
import { createDriftView } from '../../../src/render/drift-view.js';
import { toPlanJson } from '../../../src/render/plan-json.js';
import { createPlanView, PLAN_FORMATS } from '../../../src/render/plan-view.js';
import { createValidateView } from '../../../src/render/validate-view.js';
import { change, check, plan } from '../../helpers/plan.js';
import { writingTo } from '../../helpers/view-output.js';

/**
 * Each command builds one view for its format; the view decides where each part goes (stdout
 * or stderr) and whether it is coloured. The exact text of each format is held by the
 * renderers' own tests, the plan snapshots and the e2e tests.
 */

const ESC = '\u001b[';
const files = new Map([['stack.yaml', 'version: 1\nresources: {}\n']]);
const unknownField: Diagnostic = {
  severity: 'error',
  code: 'unknown-field',
  summary: 'unknown field "flavour"',
  range: { filename: 'stack.yaml', start: { line: 2, column: 1 }, end: { line: 2, column: 10 } },
};
const resize = change({ address: 'cloud_instance.web_vm', action: 'update', changes: [{ path: ['flavor_id'], op: 'update', before: 'a', after: 'b' }] });
const aPlan = plan([resize], [check({ address: 'streaming_ai_tasks.ok', status: 'pass', message: 'none match' })]);

/** A view's output split by stream. */
function streams(color = false) {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, output: writingTo(out, { color, errors: err }) };
}

describe('the plan view', () => {
  it('json: streams a long plan a chunk of changes at a time, never as one string, and the chunks make the whole document', () => {
    const s = streams();
    const many = plan(Array.from({ length: 5_000 }, (_, i) => change({ address: `dns_rrset.main/h${i}.example.com/A`, action: 'create', after: { name: `h${i}.example.com` } })));
    createPlanView('json', s.output, { stackLabel: 'stack.yaml' }).plan(many, files);
    expect(s.out.length).toBeGreaterThan(10);
    expect(Math.max(...s.out.map((chunk) => chunk.length))).toBeLessThan(70 * 1024);
    expect(s.out.join('')).toBe(`${JSON.stringify(toPlanJson(many), null, 2)}\n`);
    expect(JSON.parse(s.out.join('')).resource_changes).toHaveLength(5_000);
  });

  it('text: the plan on stdout, coloured when the run is; an invalid stack on stderr', () => {
    const s = streams(true);
    const view = createPlanView('text', s.output, { stackLabel: 'stack.yaml' });
    view.plan(aPlan, files);
    view.invalidStack([unknownField], files);
    expect(s.out).toHaveLength(1);
    expect(s.out[0]).toContain(`${ESC}33m`);
    expect(s.err).toHaveLength(1);
    expect(s.err[0]).toContain('unknown field "flavour"');
  });

  it('json: the plan document, or the diagnostics document, on stdout and never coloured', () => {
    const s = streams(true);
    const view = createPlanView('json', s.output, { stackLabel: 'stack.yaml' });
    view.plan(aPlan, files);
    view.invalidStack([unknownField], files);
    expect(JSON.parse(s.out[0]!)).toMatchObject({ summary: { change: 1 }, applyable: true });
    expect(JSON.parse(s.out[1]!)).toMatchObject({ valid: false, error_count: 1 });
    expect(s.out.join('')).not.toContain(ESC);
    expect(s.err).toEqual([]);
  });

  it('markdown: a comment on stdout whose plan is never coloured, even when the run is', () => {
    const s = streams(true);
    createPlanView('markdown', s.output, { stackLabel: 'stacks/prod.yaml' }).plan(aPlan, files);
    expect(s.out[0]!.split('\n')[0]).toBe('<!-- edgeform:plan stack=stacks/prod.yaml -->');
    expect(s.out[0]).not.toContain(ESC);
  });

  it('every format says on stderr whether the plan was saved, so stdout stays the one document', () => {
    for (const format of PLAN_FORMATS) {
      const s = streams();
      const view = createPlanView(format, s.output, { stackLabel: 'stack.yaml' });
      view.saved('plan.json');
      view.notSaved('plan.json', true);
      expect(s.out).toEqual([]);
      expect(s.err).toEqual([
        'Saved the plan to plan.json. To perform exactly these actions, run: edgeform apply plan.json',
        'The plan has errors, so it was not saved to plan.json. The older plan file at plan.json was removed so it cannot be applied by mistake.',
      ]);
    }
  });
});

describe('the drift view', () => {
  const report = buildDriftReport(aPlan);

  it('text: the report on stdout, coloured only when the run is', () => {
    const on = streams(true);
    createDriftView('text', on.output, { stackLabel: 'stack.yaml' }).report(report, 2);
    const off = streams(false);
    createDriftView('text', off.output, { stackLabel: 'stack.yaml' }).report(report, 2);
    expect(on.out[0]).toContain(ESC);
    expect(off.out[0]).not.toContain(ESC);
    expect(on.out[0]!.replace(/\u001b\[[0-9;]*m/g, '')).toBe(off.out[0]);
  });

  it('json: the report with its errors as JSON diagnostics, and the exit code with its meaning', () => {
    const s = streams();
    createDriftView('json', s.output, { stackLabel: 'stack.yaml' }).report({ ...report, errors: [unknownField] }, 1);
    expect(JSON.parse(s.out[0]!)).toMatchObject({ exit_code: 1, exit_meaning: expect.stringMatching(/^error: .*not a drift verdict$/) });
    expect(JSON.parse(s.out[0]!).errors).toEqual([
      { severity: 'error', code: 'unknown-field', summary: 'unknown field "flavour"', detail: null, address: null, range: unknownField.range },
    ]);
  });

  it('markdown: an invalid stack reported as plan reports it', () => {
    const s = streams();
    createDriftView('markdown', s.output, { stackLabel: 'stack.yaml' }).invalidStack([unknownField], files);
    expect(s.out[0]).toContain('### edgeform plan for `stack.yaml`\n\n**The stack is invalid**; nothing was read or changed.');
  });
});

describe('the validate view', () => {
  it('text: the diagnostics on stderr and the success line on stdout', () => {
    const s = streams();
    createValidateView('text', s.output).result({ resources: 1, checks: 0 }, [{ ...unknownField, severity: 'warning' }], files);
    expect(s.err[0]).toContain('warning: unknown field "flavour"');
    expect(s.out).toEqual(['Success! The stack is valid (1 resource, 0 checks).']);
  });

  it('json: one diagnostics document on stdout, and nothing else', () => {
    const s = streams();
    createValidateView('json', s.output).result(null, [unknownField], files);
    expect(s.out).toHaveLength(1);
    expect(JSON.parse(s.out[0]!)).toMatchObject({ valid: false, error_count: 1 });
    expect(s.err).toEqual([]);
  });
});

describe('the apply view', () => {
  const verbsOf = (): [string, string] => ['Resizing', 'Resized'];
  const runError = { code: 'EDGEFORM_STALE_PLAN', message: 'Saved plan is stale' };

  it('text: the plan, the question and the cancellation on stdout; nothing more when the run did not happen', () => {
    const s = streams();
    const view = createApplyView('text', s.output, { verbsOf, now: () => 0 });
    view.plan(aPlan, files);
    view.cancelled();
    view.notRun(runError);
    expect(view.promptStream).toBe('stdout');
    expect(s.out).toHaveLength(2);
    expect(s.out[1]).toBe('Apply cancelled: nothing was changed.');
    expect(s.err).toEqual([]);
  });

  it('json: stdout carries JSON lines only: the plan, the question and the cancellation go to stderr; the cancellation ends the events', () => {
    const s = streams();
    const view = createApplyView('json', s.output, { verbsOf, now: () => Date.UTC(2026, 0, 1) });
    view.plan(aPlan, files);
    view.cancelled();
    expect(view.promptStream).toBe('stderr');
    expect(s.out.map((l) => (JSON.parse(l) as { type: string }).type)).toEqual(['run_error', 'change_summary']);
    expect(s.err[1]).toBe('Apply cancelled: nothing was changed.');
  });

  it('json: a run that did not happen still ends with a change_summary naming the error', () => {
    const s = streams();
    createApplyView('json', s.output, { verbsOf, now: () => Date.UTC(2026, 0, 1) }).notRun(runError);
    const [event, summary] = s.out.map((l) => JSON.parse(l));
    expect(event).toEqual({ type: 'run_error', timestamp: '2026-01-01T00:00:00.000Z', ...runError });
    expect(summary).toMatchObject({ type: 'change_summary', add: 0, change: 0, destroy: 0, resources: [], run_error: runError });
  });

  it('json: a saved plan with no changes and a changed check stay JSON lines on stdout; the summary comes once', () => {
    const s = streams();
    const view = createApplyView('json', s.output, { verbsOf, now: () => Date.UTC(2026, 0, 1) });
    view.checkChanged(aPlan.checks[0]!, 'fail');
    view.savedPlanEmpty();
    view.notRun(runError);
    const events = s.out.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events.map((e) => e.type)).toEqual(['check_changed', 'change_summary']);
    expect(events[0]).toMatchObject({ address: 'streaming_ai_tasks.ok', was: 'fail', status: 'pass', message: 'none match' });
    expect(events[1]).toMatchObject({ resources: [], run_error: null });
    expect(s.err).toEqual(['The saved plan has no changes to apply.']);
  });

  it('both formats report an invalid stack as text on stderr; json then ends with change_summary naming it', () => {
    for (const format of ['text', 'json'] as const) {
      const s = streams();
      createApplyView(format, s.output, { verbsOf }).invalidStack([unknownField], files);
      expect(s.err[0]).toContain('stack.yaml:2:1: error: unknown field "flavour"');
      if (format === 'text') expect(s.out).toEqual([]);
      else
        expect(JSON.parse(s.out.at(-1)!)).toMatchObject({
          type: 'change_summary',
          run_error: {
            code: 'EDGEFORM_INVALID_STACK',
            message: 'the stack is not valid (1 error, 0 warnings; first: stack.yaml:2:1: unknown field "flavour"); nothing was read or changed',
          },
        });
    }
  });
});
