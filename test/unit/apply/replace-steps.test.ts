/**
 * How the executor runs a replace: two steps (its destroy, its create) in Terraform's order
 * across a chain, each address reported once, and what a failure, a check, an interrupt or a
 * refused create check does to the rest of the chain. In memory: every kind is a stand-in whose
 * resources live in a map (a read finds what is there; a delete takes it out, a create puts the
 * block's version in), so the run is the executor's own work and the log is what it sent.
 */
import { describe, expect, it } from 'vitest';
import { CONFIRM_POLICY, executePlan, type ApplyHooks } from '../../../src/apply/executor.js';
import { countOutcome, type ApplyOutcome } from '../../../src/apply/outcome.js';
import { RunFatalError } from '../../../src/errors.js';
import type { ProviderContext, ProviderPlan, ProviderRegistry, ResourceProvider } from '../../../src/kinds/provider.js';
import { providers } from '../../../src/kinds/providers.js';
import type { CheckResult, ResourceChange } from '../../../src/plan/types.js';
import { summaryLines } from '../../../src/render/apply-view.js';
import { change, check, plan } from '../../helpers/plan.js';
import { watchWrites } from '../../../src/kinds/context.js';

/** What a stand-in world holds and how it misbehaves. */
interface World {
  /** address → version. */
  live: Map<string, number>;
  log: string[];
  /** `ACTION ADDRESS` that throw when sent. */
  failing: Set<string>;
  /** `ACTION ADDRESS` that wait for this before they act. */
  held: Map<string, Promise<void>>;
  /** Addresses whose create check (beforeReplace) refuses. */
  refused: Set<string>;
  /** `ACTION ADDRESS` that stop the run (the platform unavailable) when sent. */
  fatal: Set<string>;
}

function world(addresses: string[]): World {
  return { live: new Map(addresses.map((a) => [a, 1])), log: [], failing: new Set(), held: new Map(), refused: new Set(), fatal: new Set() };
}

/** Every resource kind as the stand-in: its desired `v` against the live version; a different one forces a replace. */
function standIn(w: World): ProviderRegistry['resources'] {
  const diff = (desired: Record<string, unknown>, state: Record<string, unknown>): ProviderPlan => {
    const replace = desired.v !== undefined && desired.v !== state.v;
    return {
      action: replace ? 'replace' : 'no-op',
      before: { v: state.v },
      after: { v: desired.v ?? state.v },
      changes: replace ? [{ path: ['v'], op: 'update', before: state.v, after: desired.v, forces_replacement: true }] : [],
      errors: [],
      warnings: [],
      notes: [],
    };
  };
  const fake: ResourceProvider<'fastedge_app'> = {
    ...providers.resources.fastedge_app,
    groupRead: undefined,
    read: async (_ctx, _desired, ref) => (w.live.has(ref.address) ? { exists: true, state: { v: w.live.get(ref.address) } } : { exists: false }),
    plan: (desired, state) => diff(desired as unknown as Record<string, unknown>, state),
    async apply(_ctx, c) {
      const what = `${c.action} ${c.address}`;
      await w.held.get(what);
      w.log.push(what);
      if (w.failing.has(what)) throw new Error(`${what} refused`);
      if (w.fatal.has(what)) throw new RunFatalError('EDGEFORM_PLATFORM_UNAVAILABLE', 'the platform is unavailable');
      if (c.action === 'delete') w.live.delete(c.address);
      else w.live.set(c.address, (c.desired as unknown as { v?: number }).v ?? 1);
    },
    async beforeReplace(_ctx, c) {
      if (w.refused.has(c.address)) throw new Error(`${c.address}: its create would be refused`);
    },
  };
  return Object.fromEntries(Object.keys(providers.resources).map((type) => [type, { ...fake, type }])) as unknown as ProviderRegistry['resources'];
}

const context: ProviderContext = {
  api: undefined as never,
  signal: new AbortController().signal,
  waitForTasks: () => Promise.reject(new Error('no task is waited on here')),
  progress: () => undefined,
  sleep: () => Promise.resolve(),
  urgentApi: () => context.api,
  watchWrites,
};

const replace = (address: string, dependsOn: string[] = []) =>
  change({ address, action: 'replace', desired: { v: 2 }, depends_on: dependsOn, changes: [{ path: ['v'], op: 'update', before: 1, after: 2, forces_replacement: true }] });
const NET = 'cloud_network.net';
const SUBNET = 'cloud_subnet.app';
const VM = 'cloud_instance.vm';
/** The chain: the network, its subnet, an instance on both; all three replaced. */
const chain = () => [replace(NET), replace(SUBNET, [NET]), replace(VM, [NET, SUBNET])];

/** Hooks that record what each address was told, in order. */
function recording(extra: Partial<ApplyHooks> = {}): ApplyHooks & { events: string[] } {
  const events: string[] = [];
  return {
    events,
    onStart: (c) => events.push(`start ${c.address}`),
    onPaused: (c, o) => {
      events.push(`paused ${c.address} ${o.status}`);
      extra.onPaused?.(c, o);
    },
    onFinish: (c, o) => {
      events.push(`finish ${c.address} ${o.status}${o.destroyed ? ' (destroyed)' : ''}`);
      extra.onFinish?.(c, o);
    },
  };
}

async function run(
  w: World,
  changes: ResourceChange[],
  options: { checks?: CheckResult[]; hooks?: ApplyHooks; stop?: AbortSignal; maxTasks?: number } = {},
): Promise<ApplyOutcome> {
  return executePlan({
    plan: plan(changes, options.checks ?? []),
    providers: standIn(w),
    ctx: context,
    maxTasks: options.maxTasks ?? 10,
    confirm: { ...CONFIRM_POLICY, attempts: 2, sleep: () => Promise.resolve() },
    ...(options.hooks ? { hooks: options.hooks } : {}),
    ...(options.stop ? { stop: options.stop } : {}),
  });
}

const statuses = (outcome: ApplyOutcome) => outcome.resources.map((r) => `${r.address} ${r.status}${r.destroyed ? ' (destroyed)' : ''}`);

describe('a replace runs as two steps', () => {
  it("destroys a chain's dependants first and creates it dependency first, reporting each address once, after its create", async () => {
    const w = world([NET, SUBNET, VM]);
    const hooks = recording();
    const outcome = await run(w, chain(), { hooks });
    expect(w.log).toEqual([`delete ${VM}`, `delete ${SUBNET}`, `delete ${NET}`, `create ${NET}`, `create ${SUBNET}`, `create ${VM}`]);
    expect(statuses(outcome)).toEqual([`${NET} applied`, `${SUBNET} applied`, `${VM} applied`]);
    expect(hooks.events.filter((e) => e.startsWith('finish'))).toEqual([`finish ${NET} applied`, `finish ${SUBNET} applied`, `finish ${VM} applied`]);
    expect(hooks.events.filter((e) => e.startsWith('start'))).toEqual([`start ${VM}`, `start ${SUBNET}`, `start ${NET}`]);
    expect(hooks.events.filter((e) => e.startsWith('paused'))).toEqual([`paused ${VM} applied`, `paused ${SUBNET} applied`, `paused ${NET} applied`]);
    expect(countOutcome(outcome)).toMatchObject({ added: 3, destroyed: 3 });
  });

  it("a dependant's destroy that fails keeps what it uses: the dependency is not destroyed, nothing is created", async () => {
    const w = world([NET, SUBNET, VM]);
    w.failing.add(`delete ${VM}`);
    const outcome = await run(w, chain());
    expect(w.log).toEqual([`delete ${VM}`]);
    expect(statuses(outcome)).toEqual([`${NET} skipped`, `${SUBNET} skipped`, `${VM} failed`]);
    expect(outcome.resources.map((r) => r.skippedBecause)).toEqual([VM, VM, undefined]);
  });

  it("a create that fails after its destroy says the old one was destroyed; its dependants' creates are skipped, destroyed", async () => {
    const w = world([NET, SUBNET, VM]);
    w.failing.add(`create ${NET}`);
    const hooks = recording();
    const outcome = await run(w, chain(), { hooks });
    expect(w.log).toEqual([`delete ${VM}`, `delete ${SUBNET}`, `delete ${NET}`, `create ${NET}`]);
    expect(statuses(outcome)).toEqual([`${NET} failed (destroyed)`, `${SUBNET} skipped (destroyed)`, `${VM} skipped (destroyed)`]);
    expect(outcome.resources[0]!.error).toBe(`the old cloud_network was destroyed; creating its replacement failed: create ${NET} refused`);
    expect(hooks.events.filter((e) => e.startsWith('finish'))).toEqual([
      `finish ${NET} failed (destroyed)`,
      `finish ${SUBNET} skipped (destroyed)`,
      `finish ${VM} skipped (destroyed)`,
    ]);
    expect(countOutcome(outcome)).toMatchObject({ added: 0, destroyed: 3, failed: 1, skipped: 2 });
    expect(summaryLines(outcome)).toContain(`  ${SUBNET}: depends on ${NET}, which failed (its old resource was destroyed; its replacement was not created)`);
  });

  it('a replace whose create is skipped before its destroy started is not destroyed (a destroy already running finishes)', async () => {
    // cloud_volume.data is created and fails; the instance's replacement needs it; the instance's
    // destroy waits for the destroy of the subnet (which depends on it), which runs meanwhile.
    const w = world([NET, SUBNET, VM]);
    w.failing.add('create cloud_volume.data');
    let release!: () => void;
    w.held.set(`delete ${SUBNET}`, new Promise<void>((resolve) => (release = resolve)));
    const changes = [change({ address: 'cloud_volume.data', action: 'create', before: null, desired: {} }), replace(VM, ['cloud_volume.data']), replace(SUBNET, [VM])];
    const hooks = recording({ onFinish: (c) => c.address === 'cloud_volume.data' && release() });
    const outcome = await run(w, changes, { hooks });
    expect(w.log).toEqual(['create cloud_volume.data', `delete ${SUBNET}`]);
    expect(statuses(outcome)).toEqual(['cloud_volume.data failed', `${VM} skipped`, `${SUBNET} skipped (destroyed)`]);
    expect(w.live.has(VM)).toBe(true);
  });

  it('a replace behind a failing check destroys nothing', async () => {
    const w = world([SUBNET, VM]);
    const gate = check({ address: 'streaming_ai_tasks.clean', status: 'fail', message: '1 task' });
    const outcome = await run(w, [replace(SUBNET, [gate.address]), replace(VM, [SUBNET])], { checks: [gate] });
    expect(w.log).toEqual([]);
    expect(statuses(outcome)).toEqual([`${SUBNET} skipped`, `${VM} skipped`]);
  });

  it("a create check that refuses (beforeReplace) fails the replace before anything is destroyed, its dependants' too", async () => {
    const w = world([NET, SUBNET, VM]);
    w.refused.add(SUBNET);
    const outcome = await run(w, chain());
    expect(w.log).toEqual([]);
    expect(statuses(outcome)).toEqual([`${NET} skipped`, `${SUBNET} failed`, `${VM} skipped`]);
    expect(outcome.resources[1]!.error).toBe(`${SUBNET}: its create would be refused`);
  });

  it('a first interrupt between a destroy and its create: what was destroyed ends stopped, saying so; the rest not started', async () => {
    const w = world([NET, SUBNET, VM]);
    const stop = new AbortController();
    const hooks = recording({ onPaused: (c) => c.address === SUBNET && stop.abort() });
    const outcome = await run(w, chain(), { hooks, stop: stop.signal });
    expect(w.log).toEqual([`delete ${VM}`, `delete ${SUBNET}`]);
    expect(statuses(outcome)).toEqual([`${NET} not-started`, `${SUBNET} stopped (destroyed)`, `${VM} stopped (destroyed)`]);
    expect(outcome.interrupted).toBe(true);
    expect(outcome.resources[1]!.error).toBe('the old cloud_subnet was destroyed, and the interrupt came before its replacement was created: the next apply creates it');
    expect(hooks.events.filter((e) => e.startsWith('finish'))).toEqual([`finish ${SUBNET} stopped (destroyed)`, `finish ${VM} stopped (destroyed)`]);
    const lines = summaryLines(outcome);
    expect(lines[0]).toBe('Apply interrupted. Resources: 0 added, 0 changed, 2 destroyed.');
    expect(lines).toContain('Stopped part-way (2):');
    expect(lines).toContain(`  ${NET} (replace)`);
  });

  it('a run-fatal error while a replace waits between its steps: it ends stopped (destroyed), naming the error; nothing more is sent', async () => {
    const w = world([SUBNET, VM, 'fastedge_app.other']);
    w.fatal.add('create fastedge_app.gone');
    let release!: () => void;
    w.held.set('create fastedge_app.gone', new Promise<void>((resolve) => (release = resolve)));
    const changes = [replace(SUBNET), replace(VM, [SUBNET]), change({ address: 'fastedge_app.gone', action: 'create', before: null, desired: {} })];
    const outcome = await run(w, changes, { hooks: recording({ onPaused: (c) => c.address === SUBNET && release() }), maxTasks: 3 });
    expect(w.log).toEqual([`delete ${VM}`, `delete ${SUBNET}`, 'create fastedge_app.gone']);
    expect(outcome.runError?.code).toBe('EDGEFORM_PLATFORM_UNAVAILABLE');
    expect(statuses(outcome)).toEqual([`${SUBNET} stopped (destroyed)`, `${VM} stopped (destroyed)`, 'fastedge_app.gone failed']);
    expect(outcome.resources[0]!.error).toBe(
      'the old cloud_subnet was destroyed, and the run stopped (EDGEFORM_PLATFORM_UNAVAILABLE) before its replacement was created: the next apply creates it',
    );
  });

  it('a replace whose resource is already gone (an earlier run destroyed it) creates it, and counts as replaced', async () => {
    const w = world([NET]);
    const outcome = await run(w, [replace(SUBNET)]);
    expect(w.log).toEqual([`create ${SUBNET}`]);
    expect(statuses(outcome)).toEqual([`${SUBNET} applied`]);
  });
});
