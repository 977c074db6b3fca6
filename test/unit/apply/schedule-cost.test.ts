/**
 * The executor's scheduling costs O(log N) a completion, not a scan of every change: apply walks
 * plans of SMALL and LARGE (ten times as many) changes whose actions finish at once (in memory,
 * no platform), and the work counted by countScans (what the executor and the actions do) may
 * grow at most MAX_GROWTH times. Linear work grows ten times; a rescan of the plan after each
 * completion grows a hundred times. `npm run bench` times the share of an apply spent
 * scheduling (docs/performance.md).
 */
import { describe, expect, it } from 'vitest';
import { CONFIRM_POLICY, executePlan } from '../../../src/apply/executor.js';
import type { ApplyOutcome } from '../../../src/apply/outcome.js';
import type { ProviderContext, ProviderRegistry, ResourceProvider } from '../../../src/kinds/provider.js';
import { providers } from '../../../src/kinds/providers.js';
import type { CheckResult, ResourceChange } from '../../../src/plan/types.js';
import { countScans } from '../../helpers/scan-counter.js';
import { change, check, plan } from '../../helpers/plan.js';
import { watchWrites } from '../../../src/kinds/context.js';

const SMALL = 300;
const LARGE = 3_000;
/** Linear work grows LARGE / SMALL = 10 times; this leaves room for fixed costs, never for n². */
const MAX_GROWTH = 15;

/**
 * FastEdge apps that live in a set: a read finds an app while it is in the set, a delete takes
 * it out. Everything answers at once, so the run is the executor's own work.
 */
function inMemoryApps(live: Set<string>): ProviderRegistry['resources'] {
  const real = providers.resources.fastedge_app;
  const fake: ResourceProvider<'fastedge_app'> = {
    ...real,
    groupRead: undefined,
    read: async (_ctx, _desired, ref) => (live.has(ref.address) ? { exists: true, state: { id: 1, name: ref.address } } : { exists: false }),
    apply: async (_ctx, c) => void live.delete(c.address),
  };
  return { ...providers.resources, fastedge_app: fake };
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

/** Deletes `n` apps, each depending on the addresses `dependsOn(i)` gives (among them `checks`). */
async function deleteApps(n: number, dependsOn: (i: number) => string[], checks: CheckResult[] = []): Promise<ApplyOutcome> {
  const changes: ResourceChange[] = Array.from({ length: n }, (_, i) => change({ address: `fastedge_app.app_${i}`, action: 'delete', depends_on: dependsOn(i) }));
  const live = new Set(changes.map((c) => c.address));
  return executePlan({
    plan: plan(changes, checks),
    providers: inMemoryApps(live),
    ctx: context,
    maxTasks: 10,
    confirm: { ...CONFIRM_POLICY, sleep: () => Promise.resolve() },
  });
}

/** The work of `run` on SMALL and LARGE changes, how much it grew, and the outcomes. */
async function growth(run: (n: number) => Promise<ApplyOutcome>): Promise<{ ratio: number; outcomes: [ApplyOutcome, ApplyOutcome] }> {
  const small = await countScans(() => run(SMALL));
  const large = await countScans(() => run(LARGE));
  return { ratio: large.scanned / small.scanned, outcomes: [small.result, large.result] };
}

const statuses = (outcome: ApplyOutcome) => new Set(outcome.resources.map((r) => r.status));

describe('the executor schedules in O(log N) a completion', () => {
  it('applies independent changes in linear work', async () => {
    const { ratio, outcomes } = await growth((n) => deleteApps(n, () => []));
    for (const outcome of outcomes) expect(statuses(outcome)).toEqual(new Set(['applied']));
    expect(ratio).toBeLessThanOrEqual(MAX_GROWTH);
  });

  it('applies a chain of changes in linear work', async () => {
    // Deletes run in reverse: each app is deleted after the one that depends on it.
    const { ratio, outcomes } = await growth((n) => deleteApps(n, (i) => (i > 0 ? [`fastedge_app.app_${i - 1}`] : [])));
    for (const outcome of outcomes) expect(statuses(outcome)).toEqual(new Set(['applied']));
    expect(ratio).toBeLessThanOrEqual(MAX_GROWTH);
  });

  it('applies a change that waits for every other one in linear work', async () => {
    const all = (n: number) => Array.from({ length: n - 1 }, (_, i) => `fastedge_app.app_${i}`);
    // The last app depends on every other; as deletes, every other waits for the last.
    const { ratio, outcomes } = await growth((n) => deleteApps(n, (i) => (i === n - 1 ? all(n) : [])));
    for (const outcome of outcomes) expect(statuses(outcome)).toEqual(new Set(['applied']));
    expect(ratio).toBeLessThanOrEqual(MAX_GROWTH);
  });

  it('skips the dependants of a check that did not pass in linear work', async () => {
    const ready = check({ address: 'streaming_video_subtitles.ready', status: 'fail', message: 'missing ger' });
    const { ratio, outcomes } = await growth((n) => deleteApps(n, (i) => (i % 2 === 0 ? [ready.address] : []), [ready]));
    for (const outcome of outcomes) {
      const skipped = outcome.resources.filter((r) => r.status === 'skipped');
      expect(skipped.length).toBe(outcome.resources.length / 2);
      expect(new Set(skipped.map((r) => r.skippedBecause))).toEqual(new Set([ready.address]));
    }
    expect(ratio).toBeLessThanOrEqual(MAX_GROWTH);
  });
});
