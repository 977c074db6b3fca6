import { clientAround, createApiClient, type ApiClient, type ApiRequestOptions } from '../../src/api/client.js';
import type { Sleep } from '../../src/api/sleep.js';
import type { CheckBlock, ResourceBlock, Stack } from '../../src/config/types.js';
import type { ResourceType } from '../../src/kinds/registry.js';
import { afterEach, beforeEach } from 'vitest';
import type { Emulator, EmulatorOptions } from '../../src/emulator/index.js';
import { type TestEmulator, useTestEmulator } from './emulator.js';
import { buildPlan } from '../../src/plan/planner.js';
import type { Plan, ResourceChange } from '../../src/plan/types.js';
import { createProviderContext } from '../../src/kinds/context.js';
import type { ProviderContext } from '../../src/kinds/provider.js';
import { readStack, type StackObservations } from '../../src/kinds/read-stack.js';
import { providers } from '../../src/kinds/providers.js';
import { stackOf } from './stack.js';

/** One request as a provider handed it to the API client (what the wire body was built from). */
export interface SentRequest {
  method: ApiRequestOptions['method'];
  path: string;
  query?: ApiRequestOptions['query'];
  body?: unknown;
}

/** A provider context wired to an emulator, with everything it waited for recorded. */
export interface ProviderHarness {
  ctx: ProviderContext;
  api: ApiClient;
  /**
   * Every request the providers handed to the client (request, get, post, patch, put and delete
   * alike), in order; the client's own retries are not repeated here.
   */
  sent: SentRequest[];
  /** Every retry backoff the API client waited, in ms (recorded, never slept). */
  retryDelays: number[];
  /** Every wait between task polls, in ms; each one advanced the emulator's clock by as much. */
  pollDelays: number[];
  /** Every wait a provider itself took through ctx.sleep, in ms; each one advanced the emulator's clock too. */
  providerSleeps: number[];
  /** Progress lines the providers reported. */
  progress: string[];
  close(): Promise<void>;
}

/**
 * Builds a provider context against an emulator over loopback HTTP. Nothing waits on the wall
 * clock: retry sleeps are recorded and resolve at once (jitter fixed at 0, so a first backoff is
 * exactly 250 ms), and task-poll sleeps and the providers' own waits (ctx.sleep) move the
 * emulator's manual clock forward instead.
 */
export function createProviderHarness(emu: Pick<Emulator, 'url' | 'apiKey' | 'clock'>): ProviderHarness {
  const retryDelays: number[] = [];
  const pollDelays: number[] = [];
  const progress: string[] = [];
  const sent: SentRequest[] = [];
  const providerSleeps: number[] = [];
  const recordingSleep: Sleep = async (ms) => {
    retryDelays.push(ms);
  };
  const advancingSleep: Sleep = async (ms) => {
    pollDelays.push(ms);
    emu.clock.advance(ms);
  };
  const client = createApiClient({ baseUrl: emu.url, apiKey: emu.apiKey, sleep: recordingSleep, random: () => 0, now: () => 0 });
  const request: ApiClient['request'] = (options) => {
    sent.push({ method: options.method, path: options.path, ...(options.query ? { query: options.query } : {}), ...(options.body !== undefined ? { body: options.body } : {}) });
    return client.request(options);
  };
  // The convenience methods go through the recording `request`, so `sent` misses nothing.
  const api = clientAround(client, request);
  const base = createProviderContext({ api, sleep: advancingSleep, now: () => emu.clock.now(), onProgress: (message) => progress.push(message) });
  // The context's own sleep is the injected one above; here provider waits are recorded on their
  // own so tests can tell them (resend backoff, read-lag re-reads) from poll intervals.
  const ctx: ProviderContext = {
    ...base,
    sleep: async (ms) => {
      providerSleeps.push(ms);
      emu.clock.advance(ms);
    },
  };
  return { ctx, api, sent, retryDelays, pollDelays, providerSleeps, progress, close: () => client.close() };
}

/** The desired attributes of a test's block: these defaults, with the test's own over them. */
export const desiredOf =
  <T extends object>(defaults: T) =>
  (over: Partial<T> = {}): T => ({ ...defaults, ...over });

/** Reads one block through the real read path and plans it with the real planner. */
export async function planBlocks(ctx: ProviderContext, resources: ResourceBlock[], checks: CheckBlock[] = []): Promise<Plan> {
  const stack = stackOf(resources, checks);
  return planOver(stack, await readStack(ctx, stack, providers, { parallelism: 4 }));
}

/** The real planner's plan of a stack over what was read of it, made by a fixed test run (base URL, time, version). */
export function planOver(stack: Stack, observations: Pick<StackObservations, 'reads' | 'checks'>): Plan {
  return buildPlan({
    stack,
    reads: observations.reads,
    checks: observations.checks,
    planners: providers.resources,
    baseUrl: 'http://127.0.0.1:1',
    createdAt: '2026-01-01T00:00:00.000Z',
    edgeformVersion: '0.0.0-test',
  });
}

/** The planned change of a one-resource stack, of the block's kind; fails the test when the plan errored. */
export async function planChange<K extends ResourceType>(ctx: ProviderContext, block: ResourceBlock<K> & ResourceBlock): Promise<ResourceChange<K>> {
  const plan = await planBlocks(ctx, [block]);
  if (plan.errored) throw new Error(`the plan errored: ${plan.diagnostics.map((d) => d.summary).join('; ')}`);
  // The change at the block's address is of the block's kind.
  const change = plan.resource_changes.find((c): c is ResourceChange & ResourceChange<K> => c.address === block.address);
  if (!change) throw new Error(`no change planned for ${block.address}`);
  return change;
}

/** Requests the emulator saw for one route pattern, as `METHOD route` strings in order. */
export function routesSeen(emu: Pick<Emulator, 'requests'>, filter: (route: string) => boolean = () => true): string[] {
  return emu.requests.filter((r) => filter(r.route)).map((r) => `${r.method} ${r.route}`);
}

/**
 * Registers the usual lifecycle of a provider test file: one demo-world emulator for the
 * file (manual clock), reset before each test with a fresh harness, both closed afterwards.
 * `use` receives them before each test.
 */
export function useProviderHarness(use: (emu: TestEmulator, harness: ProviderHarness) => void, options: EmulatorOptions = {}): void {
  let emu: TestEmulator;
  let harness: ProviderHarness;
  useTestEmulator((started) => (emu = started), options);
  beforeEach(() => {
    harness = createProviderHarness(emu);
    use(emu, harness);
  });
  afterEach(() => harness.close());
}
