import { describe, expect, it } from 'vitest';
import { countOutcome, type ApplyOutcome } from '../../../src/apply/outcome.js';
import { createJsonApplyView, createTextApplyView, summaryLines } from '../../../src/render/apply-view.js';
import { change } from '../../helpers/plan.js';
import { writingTo } from '../../helpers/view-output.js';

const vm = change({ address: 'cloud_instance.web_vm', action: 'update' });
const cluster = change({ address: 'cloud_k8s_cluster.prod', action: 'update' });
const verbs = (): [string, string] => ['Resizing', 'Resized'];
const STOPPED_ERROR = 'stopped at v1.30.6 on the way to v1.31.3 because of the interrupt; no further upgrade step was started. Run apply again to continue.';

/** An interrupted apply with one resource in every state an interrupt leaves. */
const interrupted: ApplyOutcome = {
  interrupted: true,
  aborted: true,
  resources: [
    { address: 'cloud_floating_ip.ip', action: 'update', status: 'applied', taskIds: ['t0'] },
    { address: 'cloud_k8s_cluster.prod', action: 'update', status: 'stopped', taskIds: ['t1'], error: STOPPED_ERROR },
    { address: 'cloud_instance.web_vm', action: 'update', status: 'aborted', taskIds: ['t2'], error: 'interrupted twice' },
    { address: 'fastedge_app.old', action: 'delete', status: 'not-started', taskIds: [] },
  ],
};

describe('the text apply view', () => {
  it('prints a start, progress, a heartbeat with the elapsed time and task, and a finish', () => {
    const lines: string[] = [];
    let now = 0;
    const view = createTextApplyView(writingTo(lines), { verbsOf: verbs, now: () => now });
    view.onStart!(vm);
    view.onProgress!(vm, 'waiting on task 1f2e3d4c-aaaa-bbbb', ['1f2e3d4c-aaaa-bbbb']);
    now = 20_000;
    view.tick();
    now = 41_000;
    view.onFinish!(vm, { address: vm.address, action: 'update', status: 'applied', taskIds: ['1f2e3d4c-aaaa-bbbb'] });
    expect(lines).toEqual([
      'cloud_instance.web_vm: Resizing...',
      'cloud_instance.web_vm: waiting on task 1f2e3d4c-aaaa-bbbb',
      'cloud_instance.web_vm: Still resizing... [20s elapsed] [task 1f2e3d4c…]',
      'cloud_instance.web_vm: Resized after 41s [task 1f2e3d4c…]',
    ]);
  });

  it('says so when a started resource ends not started because of the interrupt', () => {
    const lines: string[] = [];
    const view = createTextApplyView(writingTo(lines), { verbsOf: verbs, now: () => 0 });
    view.onStart!(vm);
    view.onFinish!(vm, { address: vm.address, action: 'update', status: 'not-started', taskIds: [] });
    expect(lines[1]).toBe('cloud_instance.web_vm: not started: stopped by the interrupt before anything was sent');
  });

  it('a replace between its steps: says it was destroyed, prints no heartbeat for it while it waits, and takes the time from its start', () => {
    const lines: string[] = [];
    let now = 0;
    const subnet = change({ address: 'cloud_subnet.app', action: 'replace' });
    const view = createTextApplyView(writingTo(lines), { verbsOf: () => ['Replacing', 'Replaced'], now: () => now });
    view.onStart!(subnet);
    now = 5_000;
    view.onPaused!(subnet, { address: subnet.address, action: 'replace', status: 'applied', taskIds: ['t1'] });
    now = 20_000;
    view.tick();
    view.onProgress!(subnet, 'creating the new cloud_subnet', ['t1']);
    now = 31_000;
    view.onFinish!(subnet, { address: subnet.address, action: 'replace', status: 'stopped', destroyed: true, taskIds: ['t1'], error: 'the interrupt came' });
    expect(lines).toEqual([
      'cloud_subnet.app: Replacing...',
      'cloud_subnet.app: destroyed after 5s [task t1]; its replacement is created once what it depends on is ready',
      'cloud_subnet.app: creating the new cloud_subnet',
      'cloud_subnet.app: stopped between its destroy and its create after 31s [task t1]: the interrupt came',
    ]);
  });

  it('says a resource stopped part-way by the interrupt is stopped, with the reason and its tasks', () => {
    const lines: string[] = [];
    let now = 0;
    const view = createTextApplyView(writingTo(lines), { verbsOf: () => ['Upgrading', 'Upgraded'], now: () => now });
    view.onStart!(cluster);
    now = 30_000;
    view.onFinish!(cluster, { address: cluster.address, action: 'update', status: 'stopped', taskIds: ['t1'], error: STOPPED_ERROR });
    expect(lines[1]).toBe(`cloud_k8s_cluster.prod: stopped part-way by the interrupt after 30s [task t1]: ${STOPPED_ERROR}`);
  });
});

describe('summaryLines', () => {
  it('is one line when everything was applied', () => {
    expect(summaryLines({ interrupted: false, aborted: false, resources: [{ address: vm.address, action: 'update', status: 'applied', taskIds: [] }] })).toEqual([
      'Apply complete! Resources: 0 added, 1 changed, 0 destroyed.',
    ]);
  });

  it('lists failed, skipped (a failed resource or a failing check) and not-started resources', () => {
    const lines = summaryLines({
      interrupted: false,
      aborted: false,
      resources: [
        { address: 'cloud_instance.web_vm', action: 'update', status: 'failed', taskIds: ['t1'], error: 'task t1 (resize_vm) ended in ERROR: quota' },
        { address: 'cloud_k8s_cluster.prod', action: 'update', status: 'skipped', taskIds: [], skippedBecause: 'cloud_instance.web_vm' },
        { address: 'cloud_floating_ip.ip', action: 'update', status: 'skipped', taskIds: [], skippedBecause: 'streaming_video_subtitles.subs' },
        { address: 'fastedge_app.old', action: 'delete', status: 'not-started', taskIds: [] },
      ],
    });
    expect(lines).toEqual([
      'Apply failed. Resources: 0 added, 0 changed, 0 destroyed.',
      '',
      'Failed (1):',
      '  cloud_instance.web_vm (update) [task t1]: task t1 (resize_vm) ended in ERROR: quota',
      '',
      'Skipped (2):',
      '  cloud_k8s_cluster.prod: depends on cloud_instance.web_vm, which failed',
      '  cloud_floating_ip.ip: depends on streaming_video_subtitles.subs, which is failing',
      '',
      'Not started (1):',
      '  fastedge_app.old (delete)',
      '',
      'Run edgeform apply again to converge: finished work is not repeated.',
    ]);
  });
});

describe('summaryLines after a change the platform refused', () => {
  const refused = {
    address: 'cloud_instance.vm',
    action: 'create' as const,
    status: 'failed' as const,
    taskIds: [],
    error: 'POST ...: 404 Not Found: SSH key deplyo not found',
    refused: true as const,
  };

  it('says what to change, not "apply again", when every failure would repeat (its dependants skipped with it)', () => {
    const lines = summaryLines({
      interrupted: false,
      aborted: false,
      resources: [refused, { address: 'cloud_k8s_cluster.prod', action: 'update', status: 'skipped', taskIds: [], skippedBecause: 'cloud_instance.vm' }],
    });
    expect(lines.at(-1)).toBe(
      'The platform refused the change of cloud_instance.vm for a reason applying again does not change: change the stack as the error says, then run edgeform plan (finished work is not repeated).',
    );
    expect(lines.join('\n')).not.toContain('apply again to converge');
  });

  it('says both when another failure may pass on a rerun', () => {
    const lines = summaryLines({
      interrupted: false,
      aborted: false,
      resources: [refused, { address: 'cloud_floating_ip.ip', action: 'update', status: 'failed', taskIds: ['t1'], error: 'task t1 (update_floating_ip) ended in ERROR' }],
    });
    expect(lines.slice(-2)).toEqual([
      'The platform refused the change of cloud_instance.vm for a reason applying again does not change: change the stack as the error says, then run edgeform plan (finished work is not repeated).',
      'For the rest, run edgeform apply again to converge: finished work is not repeated.',
    ]);
  });
});

describe('countOutcome', () => {
  it('counts stopped, aborted and not-started resources apart', () => {
    expect(countOutcome(interrupted)).toEqual({ added: 0, changed: 1, destroyed: 0, failed: 0, skipped: 0, stopped: 1, aborted: 1, notStarted: 1 });
  });
});

describe('summaryLines after an interrupt', () => {
  it('lists applied, stopped part-way, still running and not-started resources', () => {
    expect(summaryLines(interrupted)).toEqual([
      'Apply interrupted. Resources: 0 added, 1 changed, 0 destroyed.',
      '',
      'Applied (1):',
      '  cloud_floating_ip.ip (update) [task t0]',
      '',
      'Stopped part-way (1):',
      `  cloud_k8s_cluster.prod (update) [task t1]: ${STOPPED_ERROR}`,
      '',
      'Still running on the platform (1):',
      '  cloud_instance.web_vm (update) [task t2]',
      '',
      'Not started (1):',
      '  fastedge_app.old (delete)',
      '',
      'Run edgeform apply again to converge: finished work is not repeated.',
    ]);
  });
});

describe('the JSON apply view', () => {
  it('gives heartbeat progress events the action and elapsed time like the others', () => {
    const lines: string[] = [];
    let now = Date.UTC(2026, 0, 1);
    const view = createJsonApplyView(writingTo(lines), { now: () => now });
    view.onStart!(vm);
    view.onProgress!(vm, 'waiting on task t1', ['t1']);
    now += 20_000;
    view.tick();
    expect(JSON.parse(lines.at(-1)!)).toEqual({
      type: 'apply_progress',
      timestamp: '2026-01-01T00:00:20.000Z',
      address: vm.address,
      action: 'update',
      message: 'still running',
      task_ids: ['t1'],
      elapsed_ms: 20_000,
    });
  });

  it('counts stopped, aborted and not-started resources apart in change_summary', () => {
    const lines: string[] = [];
    createJsonApplyView(writingTo(lines), { now: () => Date.UTC(2026, 0, 1) }).summary(interrupted);
    const summary = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(summary).toMatchObject({ type: 'change_summary', add: 0, change: 1, destroy: 0, failed: 0, skipped: 0, stopped: 1, aborted: 1, not_started: 1, interrupted: true });
    expect((summary.resources as { status: string }[]).map((r) => r.status)).toEqual(['applied', 'stopped', 'aborted', 'not-started']);
  });

  it('writes one event per line with type and timestamp', () => {
    const lines: string[] = [];
    const view = createJsonApplyView(writingTo(lines), { now: () => Date.UTC(2026, 0, 1) });
    view.onStart!(vm);
    view.onFinish!(vm, { address: vm.address, action: 'update', status: 'failed', taskIds: ['t1'], error: 'boom', elapsedMs: 5 });
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      { type: 'apply_start', timestamp: '2026-01-01T00:00:00.000Z', address: vm.address, action: 'update' },
      {
        type: 'apply_errored',
        timestamp: '2026-01-01T00:00:00.000Z',
        address: vm.address,
        action: 'update',
        status: 'failed',
        task_ids: ['t1'],
        elapsed_ms: 5,
        error: 'boom',
        skipped_because: null,
      },
    ]);
  });
});

describe('warnings of an applied change', () => {
  const WARNING =
    'the platform acknowledged the change, but the read that confirms it failed: GET /x: 503 Service Unavailable; gave up after 4 attempts. Run edgeform plan to check it.';
  const applied = { address: vm.address, action: 'update' as const, status: 'applied' as const, taskIds: ['t1'], warnings: [WARNING] };

  it('the text view prints the finish, then the warning', () => {
    const lines: string[] = [];
    const view = createTextApplyView(writingTo(lines), { verbsOf: verbs, now: () => 0 });
    view.onStart!(vm);
    view.onFinish!(vm, applied);
    expect(lines.slice(1)).toEqual(['cloud_instance.web_vm: Resized after 0s [task t1]', `cloud_instance.web_vm: warning: ${WARNING}`]);
  });

  it('the summary is still a success, followed by the warnings', () => {
    expect(summaryLines({ interrupted: false, aborted: false, resources: [applied] })).toEqual([
      'Apply complete! Resources: 0 added, 1 changed, 0 destroyed.',
      '',
      'Warnings (1):',
      `  cloud_instance.web_vm: ${WARNING}`,
    ]);
  });

  it('the JSON view carries them in apply_complete and in the summary', () => {
    const lines: string[] = [];
    const view = createJsonApplyView(writingTo(lines), { now: () => Date.UTC(2026, 0, 1) });
    view.onFinish!(vm, { ...applied, elapsedMs: 3 });
    view.summary({ interrupted: false, aborted: false, resources: [applied] });
    const [complete, summary] = lines.map((l) => JSON.parse(l));
    expect(complete).toEqual({
      type: 'apply_complete',
      timestamp: '2026-01-01T00:00:00.000Z',
      address: vm.address,
      action: 'update',
      status: 'applied',
      task_ids: ['t1'],
      elapsed_ms: 3,
      warnings: [WARNING],
    });
    expect(summary).toMatchObject({ type: 'change_summary', change: 1, failed: 0, warned: 1, run_error: null });
    expect(summary.resources[0].warnings).toEqual([WARNING]);
  });
});

describe('a run-fatal error', () => {
  const runError = { code: 'EDGEFORM_API_KEY_REFUSED', message: 'the platform at http://127.0.0.1:1 refused the API key in EDGEFORM_API_KEY: GET /x: 401 Unauthorized' };
  const stopped: ApplyOutcome = {
    interrupted: false,
    aborted: false,
    runError,
    resources: [
      { address: 'cloud_floating_ip.ip', action: 'update', status: 'applied', taskIds: ['t0'] },
      { address: vm.address, action: 'update', status: 'not-started', taskIds: [] },
      { address: 'fastedge_app.old', action: 'delete', status: 'not-started', taskIds: [] },
    ],
  };

  it('the text view prints it once when it happens, and says why a started resource ends not started', () => {
    const lines: string[] = [];
    const view = createTextApplyView(writingTo(lines), { verbsOf: verbs, now: () => 0 });
    view.onStart!(vm);
    view.onRunError!(runError);
    view.onFinish!(vm, { address: vm.address, action: 'update', status: 'not-started', taskIds: [] });
    expect(lines).toEqual([
      'cloud_instance.web_vm: Resizing...',
      `\nError: ${runError.message}`,
      'No new actions will start. Waiting for 1 running action to finish.',
      'cloud_instance.web_vm: not started: the run stopped before anything was sent',
    ]);
  });

  it('the summary fails and counts what never started instead of listing it', () => {
    expect(summaryLines(stopped)).toEqual([
      'Apply failed. Resources: 0 added, 1 changed, 0 destroyed.',
      '',
      'Applied (1):',
      '  cloud_floating_ip.ip (update) [task t0]',
      '',
      'Not started (2): the run stopped on the error above before anything was sent for them.',
      '',
      'Run edgeform apply again to converge: finished work is not repeated.',
    ]);
  });

  it('the JSON view emits run_error when it happens and ends with a change_summary that names it', () => {
    const lines: string[] = [];
    const view = createJsonApplyView(writingTo(lines), { now: () => Date.UTC(2026, 0, 1) });
    view.onRunError!(runError);
    view.summary(stopped);
    const [event, summary] = lines.map((l) => JSON.parse(l));
    expect(event).toEqual({ type: 'run_error', timestamp: '2026-01-01T00:00:00.000Z', ...runError });
    expect(summary).toMatchObject({ type: 'change_summary', change: 1, not_started: 2, interrupted: false, run_error: runError });
  });
});

describe('a created resource in the apply views', () => {
  const app = change({ address: 'fastedge_app.edge', action: 'create' });
  const created = { address: app.address, action: 'create' as const, status: 'applied' as const, taskIds: [], id: '4711', identity: 'name "edge"' };

  it('text prints its platform id and the identity it is found by, and counts it as added', () => {
    const lines: string[] = [];
    const view = createTextApplyView(writingTo(lines), { verbsOf: () => ['Creating', 'Created'], now: () => 0 });
    view.onStart!(app);
    view.onFinish!(app, created);
    expect(lines).toEqual(['fastedge_app.edge: Creating...', 'fastedge_app.edge: Created after 0s [id 4711, found by name "edge"]']);
    expect(summaryLines({ interrupted: false, aborted: false, resources: [created] })[0]).toContain('Resources: 1 added, 0 changed, 0 destroyed.');
  });

  it('JSON events carry id and identity on its apply_complete and in the summary', () => {
    const lines: string[] = [];
    const view = createJsonApplyView(writingTo(lines), { now: () => 0 });
    view.onFinish!(app, created);
    view.summary({ interrupted: false, aborted: false, resources: [created] });
    const events = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events[0]).toMatchObject({ type: 'apply_complete', address: 'fastedge_app.edge', action: 'create', id: '4711', identity: 'name "edge"' });
    expect(events[1]).toMatchObject({ type: 'change_summary', add: 1, resources: [expect.objectContaining({ id: '4711', identity: 'name "edge"' })] });
  });
});
