/**
 * A replacement chain stopped between its steps, against the emulator: what was destroyed is
 * reported stopped (destroyed), what was not started is not started, and the next run converges:
 * a replace whose destroy happened plans as a create. The CLI's side of replacements is in
 * test/integration/cli/replace-chain.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../../src/api/client.js';
import { executePlan, type ApplyHooks, type ConfirmPolicy } from '../../../src/apply/executor.js';
import type { ApplyOutcome } from '../../../src/apply/outcome.js';
import type { ProviderContext } from '../../../src/kinds/provider.js';
import { providers } from '../../../src/kinds/providers.js';
import type { Plan } from '../../../src/plan/types.js';
import { connectTo, planYaml, writesSeen } from '../../helpers/apply.js';
import { chainStack } from '../../helpers/cloud-chain.js';
import { startTestEmulator, type TestEmulator, closeAfterEach } from '../../helpers/emulator.js';

const quickConfirm: ConfirmPolicy = { attempts: 3, delayMs: () => 0, sleep: () => Promise.resolve() };
const statuses = (outcome: ApplyOutcome) =>
  outcome.resources.filter((r) => r.action !== 'no-op').map((r) => `${r.address} ${r.action} ${r.status}${r.destroyed ? ' (destroyed)' : ''}`);
const actions = (plan: Plan) => plan.resource_changes.filter((c) => c.action !== 'no-op').map((c) => `${c.address} ${c.action}`);

describe('a replacement chain stopped between its steps', () => {
  let emu: TestEmulator | undefined;
  let api: ApiClient | undefined;
  closeAfterEach(() => [api, emu]);

  async function setUp(): Promise<{
    emu: TestEmulator;
    ctx: ProviderContext;
    apply: (yaml: string, extra?: { stop?: AbortSignal; hooks?: ApplyHooks }) => Promise<{ plan: Plan; outcome: ApplyOutcome }>;
  }> {
    emu = await startTestEmulator({ taskDurationMs: 0 });
    const connected = connectTo(emu);
    api = connected.api;
    const apply = async (yaml: string, extra: { stop?: AbortSignal; hooks?: ApplyHooks } = {}) => {
      const plan = await planYaml(connected.ctx, emu!.url, yaml);
      emu!.requests.length = 0;
      const outcome = await executePlan({ plan, providers: providers.resources, ctx: connected.ctx, maxTasks: 10, confirm: quickConfirm, ...extra });
      return { plan, outcome };
    };
    const first = await apply(chainStack());
    expect(statuses(first.outcome).every((s) => s.includes('create applied'))).toBe(true);
    return { emu, ctx: connected.ctx, apply };
  }

  it('a first interrupt after the subnet was destroyed: the instance and the subnet end stopped (destroyed), nothing else was sent; the next plan creates both, and applies', async () => {
    const { emu, ctx, apply } = await setUp();
    const stop = new AbortController();
    const { plan, outcome } = await apply(chainStack({ cidr: '10.0.1.0/24' }), {
      stop: stop.signal,
      hooks: { onPaused: (change) => change.address === 'cloud_subnet.app' && stop.abort() },
    });
    expect(actions(plan)).toEqual(['cloud_subnet.app replace', 'cloud_instance.vm replace']);
    expect(statuses(outcome)).toEqual(['cloud_subnet.app replace stopped (destroyed)', 'cloud_instance.vm replace stopped (destroyed)']);
    expect(outcome.interrupted).toBe(true);
    expect(outcome.resources.find((r) => r.address === 'cloud_subnet.app')?.error).toBe(
      'the old cloud_subnet was destroyed, and the interrupt came before its replacement was created: the next apply creates it',
    );
    expect(writesSeen(emu).map((w) => w.replace(/[0-9a-f-]{36}/g, 'ID'))).toEqual(['DELETE /cloud/v1/instances/1/76/ID', 'DELETE /cloud/v1/subnets/1/76/ID']);

    const next = await apply(chainStack({ cidr: '10.0.1.0/24' }));
    expect(actions(next.plan)).toEqual(['cloud_subnet.app create', 'cloud_instance.vm create']);
    expect(statuses(next.outcome)).toEqual(['cloud_subnet.app create applied', 'cloud_instance.vm create applied']);
    const clean = await planYaml(ctx, emu.url, chainStack({ cidr: '10.0.1.0/24' }));
    expect(actions(clean)).toEqual([]);
  });

  it('a first interrupt after only the instance was destroyed: the subnet is not started (it still exists), the next plan creates the instance and replaces the subnet', async () => {
    const { emu, ctx, apply } = await setUp();
    const stop = new AbortController();
    const { outcome } = await apply(chainStack({ cidr: '10.0.1.0/24' }), {
      stop: stop.signal,
      hooks: { onPaused: (change) => change.address === 'cloud_instance.vm' && stop.abort() },
    });
    expect(statuses(outcome)).toEqual(['cloud_subnet.app replace not-started', 'cloud_instance.vm replace stopped (destroyed)']);
    const next = await apply(chainStack({ cidr: '10.0.1.0/24' }));
    // The instance is gone, so nothing makes it a replacement now: it is created after the subnet's.
    expect(actions(next.plan)).toEqual(['cloud_subnet.app replace', 'cloud_instance.vm create']);
    expect(statuses(next.outcome)).toEqual(['cloud_subnet.app replace applied', 'cloud_instance.vm create applied']);
    expect(actions(await planYaml(ctx, emu.url, chainStack({ cidr: '10.0.1.0/24' })))).toEqual([]);
  });
});
