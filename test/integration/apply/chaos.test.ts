import { describe, expect, it } from 'vitest';
/**
 * Chaos: a generated stack of about 300 resources over every kind is applied while the emulator
 * answers 503 and 429, drops connections before and after making changes, delays answers and
 * fails tasks, all drawn from a seed. The emulator's mutation log is the ground truth apply's
 * report is held to.
 *
 * The plan is made with faults off: what is under test is apply's honesty (a read that fails
 * under faults makes the plan errored and nothing is applied, covered elsewhere). The faults a
 * request meets are fixed by the seed (keyed by method, path and the request's count, see
 * docs/emulator.md), but which requests are sent still depends on platform time: parallel waits
 * all move the one emulator clock, so a read may come just before or just after a task
 * finished. The tests therefore assert the contract, which must hold for every interleaving,
 * never one exact outcome; nothing waits on the wall clock.
 */
import { createRetryQuota } from '../../../src/api/retry.js';
import type { ApplyOutcome } from '../../../src/apply/outcome.js';
import type { MutationLogEntry } from '../../../src/emulator/index.js';
import { compareWithMutations } from '../../helpers/chaos.js';
import { expectContractHeld, FULL_CHAOS, FULL_CHAOS_TITLE, SEEDS, useChaosRuns } from '../../helpers/chaos-run.js';
import { change, plan as planOf } from '../../helpers/plan.js';

describe('apply under chaos: the report matches what the platform did', () => {
  const runChaos = useChaosRuns();

  // Enabled once the retry quota lands (issue 8, points 6 and 7). With today's run-wide budget
  // of 20 retries these rates exhaust it early, and every later 429, 503 or dropped read fails
  // at once: seeds 1, 2, 3 end with about 45, 54, 56 resources failed, and 4, 8-9, 12 of them
  // (the count moves with the order requests spend the shared budget in) are "reported failed,
  // but the emulator did <the change>": resizes, upgrades, tags, settings and deletes that were
  // acknowledged and made, whose confirmation read met the exhausted budget. That is the
  // `reportProblems` assertion; the re-run, the convergence check and the final plan pass today.
  describe('with the retry quota `edgeform apply` uses', () => {
    for (const seed of SEEDS) {
      it(`seed ${seed}: ${FULL_CHAOS_TITLE}`, async () => {
        expectContractHeld(await runChaos(seed, FULL_CHAOS, { retryQuota: createRetryQuota() }));
      });
    }
  });

  // The same run with retries unconstrained (the harness) is in chaos-harness.test.ts.
});

describe('compareWithMutations: the chaos oracle finds every kind of false report', () => {
  const fip = change({ address: 'cloud_floating_ip.ip', action: 'update', desired: { floating_ip_id: 'f1' }, after: { floating_ip_id: 'f1', tags: { env: 'prod' } } });
  const vm = change({ address: 'cloud_instance.vm', action: 'update', desired: { instance_id: 'i1' }, after: { instance_id: 'i1', flavor_id: 'big' } });
  const cluster = change({
    address: 'cloud_k8s_cluster.c',
    action: 'update',
    desired: { project_id: 1, region_id: 76, cluster_name: 'c' },
    after: { cluster_name: 'c', version: 'v1.31.3' },
    payload: { upgrade_path: ['v1.30.6', 'v1.31.3'] },
  });
  const app = change({ address: 'fastedge_app.app', action: 'delete', desired: { app_id: 7 } });
  const kept = change({ address: 'streaming_player.p', action: 'no-op', desired: { player_id: 5 } });
  const thePlan = planOf([fip, vm, cluster, app, kept]);
  const report = (statuses: Record<string, string>): ApplyOutcome => ({
    resources: thePlan.resource_changes.map((c) => ({ address: c.address, action: c.action, status: (statuses[c.address] ?? 'applied') as never, taskIds: [] })),
    interrupted: false,
    aborted: false,
  });
  const m = (kind: MutationLogEntry['kind'], id: string, what: string, after: Record<string, unknown> = {}): MutationLogEntry => ({
    time: 0,
    kind,
    id,
    change: what,
    after,
    taskId: null,
  });
  const allDone = [
    m('floating_ip', 'f1', 'update_floating_ip', { tags: { env: 'prod' } }),
    m('instance', 'i1', 'resize_vm', { flavor_id: 'big' }),
    m('k8s_cluster', '1/76/c', 'upgrade_k8s_cluster_v2', { version: 'v1.30.6' }),
    m('k8s_cluster', '1/76/c', 'upgrade_k8s_cluster_v2', { version: 'v1.31.3' }),
    m('fastedge_app', '7', 'delete'),
  ];
  const unchangedPlayer = { 'streaming_player.p': 'unchanged' };

  it('finds nothing when every reported change was made once and nothing else', () => {
    expect(compareWithMutations(thePlan, report(unchangedPlayer), allDone)).toEqual([]);
  });

  it('finds a change made twice, a reported change never made, and a change made elsewhere', () => {
    const problems = compareWithMutations(thePlan, report(unchangedPlayer), [...allDone.slice(0, 4), allDone[1]!, m('streaming_player', '9', 'delete')]);
    expect(problems).toEqual([
      'cloud_instance.vm: reported applied, but the emulator did resize_vm {"flavor_id":"big"} ; resize_vm {"flavor_id":"big"}; the plan expects resize_vm {"flavor_id":"big"}',
      'fastedge_app.app: reported applied, but the emulator did nothing; the plan expects delete {}',
      'streaming_player 9: not in the plan, but the emulator did delete {}',
    ]);
  });

  it('finds a change made although the report says failed or skipped, and allows a part of a multi-step upgrade', () => {
    const statuses = { ...unchangedPlayer, 'cloud_instance.vm': 'failed', 'cloud_floating_ip.ip': 'skipped', 'cloud_k8s_cluster.c': 'failed' };
    expect(
      compareWithMutations(
        thePlan,
        report(statuses),
        allDone.filter((x) => x.kind !== 'k8s_cluster' || x.after.version === 'v1.30.6'),
      ),
    ).toEqual([
      'cloud_floating_ip.ip: reported skipped, but the emulator did update_floating_ip {"tags":{"env":"prod"}}',
      'cloud_instance.vm: reported failed, but the emulator did resize_vm {"flavor_id":"big"}',
    ]);
    expect(
      compareWithMutations(
        thePlan,
        report(statuses),
        allDone.filter((x) => x.kind !== 'instance' && x.kind !== 'floating_ip'),
      ),
    ).toEqual(['cloud_k8s_cluster.c: reported failed, but the emulator did upgrade_k8s_cluster_v2 {"version":"v1.30.6"} ; upgrade_k8s_cluster_v2 {"version":"v1.31.3"}']);
  });

  // --- cloud_instance (vm branch): creates are matched by their ownership address, deletes by their task's change. ---
  it('matches a create by the address its tags carry, whatever id the platform gave it; finds one made twice, and a task delete', () => {
    const tags = { 'edgeform-stack': 'chaos', 'edgeform-address': 'cloud_instance.new' };
    const made = change({ address: 'cloud_instance.new', action: 'create', desired: {}, payload: { name: 'n', flavor: 'f', tags } });
    const gone = change({ address: 'cloud_instance.old', action: 'delete', desired: { instance_id: 'i9' } });
    const plan2 = planOf([made, gone]);
    const applied: ApplyOutcome = {
      resources: plan2.resource_changes.map((c) => ({ address: c.address, action: c.action, status: 'applied', taskIds: [] })),
      interrupted: false,
      aborted: false,
    };
    const create = (id: string) => m('instance', id, 'create_vm', { name: 'n', flavor_id: 'f', tags });
    expect(compareWithMutations(plan2, applied, [create('x1'), m('instance', 'i9', 'delete_vm')])).toEqual([]);
    expect(compareWithMutations(plan2, applied, [create('x1'), create('x2'), m('instance', 'i9', 'delete_vm')])).toEqual([
      'cloud_instance.new: reported applied, but the emulator did create_vm {"flavor_id":"f","name":"n","tags":{"edgeform-address":"cloud_instance.new","edgeform-stack":"chaos"}} ; create_vm {"flavor_id":"f","name":"n","tags":{"edgeform-address":"cloud_instance.new","edgeform-stack":"chaos"}}; the plan expects create_vm {"flavor_id":"f","name":"n","tags":{"edgeform-address":"cloud_instance.new","edgeform-stack":"chaos"}}',
    ]);
  });
  // --- end of cloud_instance (vm branch) ---

  it('finds a change made to a resource reported unchanged', () => {
    expect(compareWithMutations(thePlan, report(unchangedPlayer), [...allDone, m('streaming_player', '5', 'delete')])).toEqual([
      'streaming_player.p: reported unchanged, but the emulator did delete {}',
    ]);
  });
});
