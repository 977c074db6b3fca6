/**
 * The runner of the generated spec-answer tests (test/integration/providers/spec-answers-*.test.ts):
 * the real emulator, seeded with the chaos world (every kind), behind a loopback proxy that
 * forwards every request to it and, for one read operation at a time, hands the provider that
 * operation's answers in another form the vendor's spec allows. Reads, plans and imports go
 * through the real API client and providers. See spec-answers.ts for the forms.
 */
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient } from '../../src/api/client.js';
import { loadStack } from '../../src/config/load-stack.js';
import type { Stack } from '../../src/config/types.js';
import { EdgeformError } from '../../src/errors.js';
import { createProviderContext } from '../../src/kinds/context.js';
import type { ImportScope } from '../../src/kinds/kind-list.js';
import type { ProviderContext } from '../../src/kinds/provider.js';
import { providers } from '../../src/kinds/providers.js';
import { readStack } from '../../src/kinds/read-stack.js';
import type { CheckType, ResourceType } from '../../src/kinds/registry.js';
import { buildPlan } from '../../src/plan/planner.js';
import { selectTargets } from '../../src/plan/targets.js';
import { CHAOS_S3_ENV, chaosWorld } from './chaos.js';
import { startTestEmulator, type TestEmulator } from './emulator.js';
import { startLoopbackServer, type LoopbackServer } from './loopback-server.js';
import { arbitraryOf, enumRounds, operationOf, sitesOf, withForms, type Site, type SpecOperation } from './spec-answers.js';
import { writeStackFiles } from './stack-files.js';

/** Checks read by the chaos stack too: AI tasks of the fixtures below, and a video's subtitles. */
const CHECKS = `checks:
  no_failed_transcriptions: { type: streaming_ai_tasks, where: { task_name: transcription, status: FAILURE }, max_count: 0 }
  subtitles_ready: { type: streaming_video_subtitles, video_id: 7001, languages: [eng] }
`;

const AI_TASKS = [
  { task_id: 'f5057fee-4c3e-4459-82dd-21250b729601', task_name: 'transcription', status: 'FAILURE', progress: 100, created_at: '2025-12-01T08:00:00Z', task_data: { url: 'x' } },
  { task_id: 'f41fcb28-e1ec-4229-9aa5-148c01a8c3f5', task_name: 'transcription', status: 'SUCCESS', progress: 100, created_at: '2025-12-01T08:00:00Z' },
];

/** What a plan shows, without what may differ between two reads of one world (time, fingerprints of `before`). */
interface PlanShape {
  changes: unknown[];
  diagnostics: unknown[];
  checks: unknown[];
}

/** What an import found and left out. */
interface ImportShape {
  found: unknown[];
  skipped: unknown[];
}

/** How the proxy answers the operation under test: the emulator's answer in another form, or a body of its own. */
type Answer = { operation: string; reform: (body: unknown) => unknown };

interface World {
  emu: TestEmulator;
  proxy: LoopbackServer;
  api: ApiClient;
  ctx: ProviderContext;
  stack: Stack;
  /** The answer to serve in another form (null: the emulator's own). */
  answer: Answer | null;
  /** The first answer of each operation, by operation name, while recording. */
  recorded: Map<string, { op: SpecOperation; body: unknown }> | null;
  /** GET paths no vendor spec documents. */
  undocumented: Set<string>;
}

async function startWorld(): Promise<World> {
  const chaos = chaosWorld();
  const emu = await startTestEmulator({ fixtures: { ...chaos.fixtures, ai_tasks: AI_TASKS } as never });
  const world = { emu, answer: null, recorded: null, undocumented: new Set<string>() } as unknown as World;
  world.proxy = await startLoopbackServer(async (req, res) => {
    const upstream = await fetch(`${emu.url}${req.url}`, {
      method: req.method,
      headers: { authorization: String(req.headers.authorization ?? ''), ...(req.headers['content-type'] ? { 'content-type': String(req.headers['content-type']) } : {}) },
      ...(req.body === '' ? {} : { body: req.body }),
    });
    let text = await upstream.text();
    const op = req.method === 'GET' && upstream.status === 200 ? operationOf(req.url) : undefined;
    if (req.method === 'GET' && upstream.status === 200 && op === undefined) world.undocumented.add(req.url.split('?', 1)[0]!);
    if (op !== undefined) {
      if (world.recorded !== null && !world.recorded.has(op.name)) world.recorded.set(op.name, { op, body: JSON.parse(text) });
      if (world.answer?.operation === op.name) text = JSON.stringify(world.answer.reform(JSON.parse(text)));
    }
    res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
    res.end(text);
  });
  const dir = writeStackFiles({ 'stack.yaml': `${chaos.yaml}${CHECKS}` });
  const loaded = await loadStack(join(dir, 'stack.yaml'), CHAOS_S3_ENV);
  if (!loaded.stack) throw new Error(`the chaos stack does not load: ${loaded.diagnostics.map((d) => d.summary).join('; ')}`);
  world.stack = loaded.stack;
  world.api = createApiClient({ baseUrl: world.proxy.url, apiKey: emu.apiKey });
  world.ctx = createProviderContext({ api: world.api, env: CHAOS_S3_ENV });
  return world;
}

/** The blocks of a kind a test reads: the first three and the last two, with what they depend on. */
function selectionOf(stack: Stack, kind: ResourceType | CheckType): Set<string> {
  const all = [...stack.resources, ...stack.checks].filter((b) => b.type === kind).map((b) => b.address);
  const chosen = [...new Set([...all.slice(0, 3), ...all.slice(-2)])];
  return selectTargets(stack, chosen).selected;
}

async function planShape(world: World, selected: Set<string>): Promise<PlanShape> {
  const observed = await readStack(world.ctx, world.stack, providers, { parallelism: 4, selected });
  const plan = buildPlan({
    stack: world.stack,
    selected,
    reads: observed.reads,
    checks: observed.checks,
    owned: observed.owned,
    planners: providers.resources,
    baseUrl: world.api.baseUrl,
    createdAt: '2026-01-01T00:00:00.000Z',
    edgeformVersion: '0.0.0-test',
  });
  for (const d of plan.diagnostics.filter((d) => d.severity === 'error')) expect(d.address, `an error without its resource: ${d.summary}`).toBeDefined();
  return {
    changes: plan.resource_changes.map((c) => ({ address: c.address, action: c.action, changes: c.changes, payload: c.payload ?? null })),
    diagnostics: plan.diagnostics.map((d) => [d.severity, d.address ?? null, d.summary]),
    checks: plan.checks.map((c) => [c.address, c.status, c.message]),
  };
}

const SCOPES: Record<ImportScope['kind'], ImportScope> = {
  cloud: { kind: 'cloud', project_id: 1, region_id: 76 },
  project: { kind: 'project', project_id: 1 },
  reseller: { kind: 'reseller', reseller_id: 7 },
  video: { kind: 'video', video_id: 7001 },
  account: { kind: 'account' },
};

/** The kind's import of its scope in the chaos world; a named error (EdgeformError) is an outcome, anything else a crash. */
async function importShape(world: World, kind: ResourceType | CheckType): Promise<ImportShape | string | null> {
  const importer = (providers.resources as Record<string, (typeof providers.resources)[ResourceType]>)[kind]?.import;
  if (importer === undefined) return null;
  try {
    // Which resources import writes and leaves out: a default written or not is the same block.
    const found = await importer.discover(world.ctx, SCOPES[importer.scope]);
    return { found: found.found.map((f) => `${f.type} ${f.id}`), skipped: found.skipped.map((s) => JSON.stringify(s).slice(0, 200)) };
  } catch (error) {
    if (error instanceof EdgeformError) return `${error.code}: ${error.message}`;
    throw error;
  }
}

/** Runs with the operation's answers reformed; the answers go back to the emulator's own after. */
async function reading<T>(world: World, answer: Answer, run: () => Promise<T>): Promise<T> {
  world.answer = answer;
  try {
    return await run();
  } finally {
    world.answer = null;
  }
}

const describeSites = (sites: readonly Site[]) => sites.map((s) => `${s.where}: ${s.form}`);

/**
 * Registers the tests of `kinds`: for every operation a kind's read (plan) and import send, its
 * answers in every other form the spec allows are read into a plan or a located error, never a
 * crash; the forms the spec says mean the same plan exactly what the emulator's own answer plans
 * (and import the same blocks).
 */
export async function describeSpecAnswers(kinds: ReadonlyArray<ResourceType | CheckType>): Promise<void> {
  const world = await startWorld();
  afterAll(async () => {
    await world.api.close();
    await world.proxy.close();
    await world.emu.close();
  });
  const cases: Array<{
    kind: ResourceType | CheckType;
    selected: Set<string>;
    base: PlanShape;
    imported: ImportShape | string | null;
    read: string[];
    operations: Array<{ op: SpecOperation; body: unknown }>;
  }> = [];
  // An operation is tried under the first kind that reads it (a cluster's read of the instances it depends on is the instances' own).
  const tried = new Set<string>();
  for (const kind of kinds) {
    const selected = selectionOf(world.stack, kind);
    world.recorded = new Map();
    const base = await planShape(world, selected);
    const imported = await importShape(world, kind);
    const read = [...world.recorded.keys()];
    const operations = [...world.recorded.values()].filter(({ op }) => !tried.has(op.name));
    for (const { op } of operations) tried.add(op.name);
    cases.push({ kind, selected, base, imported, read, operations });
    world.recorded = null;
  }

  describe.each(cases)('$kind', ({ kind, selected, base, imported, read, operations }) => {
    it('reads only what a vendor spec documents, through at least one operation', () => {
      expect([...world.undocumented]).toEqual([]);
      expect(read.length).toBeGreaterThan(0);
      expect(base.diagnostics.filter((d) => (d as unknown[])[0] === 'error')).toEqual([]);
    });

    /** Plans (and imports) with `answer`; `same`: the result must equal the emulator's own. */
    const check = async (answer: Answer, same: boolean): Promise<void> => {
      const plan = await reading(world, answer, () => planShape(world, selected));
      const found = await reading(world, answer, () => importShape(world, kind));
      if (same) {
        expect(plan).toEqual(base);
        expect(found).toEqual(imported);
      }
    };

    describe.each(operations.map(({ op, body }) => ({ name: op.name, op, body, sites: sitesOf(op, body) })))('$name', ({ op, body, sites }) => {
      const same = sites.filter((s) => s.same);
      const other = sites.filter((s) => !s.same);
      const reform = (chosen: readonly Site[]): Answer => ({ operation: op.name, reform: (b) => withForms(b, chosen) });

      // Registered only where the answer has such forms: a test that could check nothing is not one.
      if (same.length > 0)
        it(`plans no change that is not there for the forms the spec says are the same: ${describeSites(same).join('; ')}`, async () => {
          // All of them at once first; a failure shrinks to the fewest forms that fail.
          await fc.assert(
            fc.asyncProperty(fc.subarray(same, { minLength: 1 }), (chosen) => check(reform(chosen), true)),
            { numRuns: 4, examples: [[same]] },
          );
        });

      if (other.length > 0)
        it(`reads every enum value, null where nullable and optional fields absent into a plan or a located error (${other.length} forms)`, async () => {
          for (const round of enumRounds(other)) await check(reform(round), false);
          await fc.assert(
            fc.asyncProperty(fc.subarray(other, { minLength: 1 }), (chosen) => check(reform(chosen), false)),
            { numRuns: 4 },
          );
        });

      it('reads answers generated from the response schema alone into a plan or a located error', async () => {
        expect(body).toBeDefined();
        await fc.assert(
          fc.asyncProperty(arbitraryOf(op.spec, op.schema), (generated) => check({ operation: op.name, reform: () => generated }, false)),
          { numRuns: 3 },
        );
      });
    });
  });
}
