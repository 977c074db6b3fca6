/**
 * Nothing edgeform does with a stack costs more than linear time in its size: reading and
 * validating it, planning it, rendering the plan and the diagnostics, and walking its
 * dependency graph. Cost is counted, not timed (see countScans): each stage runs on a stack of
 * SMALL and of LARGE (ten times as many) blocks, and its count may grow at most MAX_GROWTH
 * times. Linear work grows about ten times; a scan inside a loop over the blocks grows a
 * hundred times. `npm run bench` times the same stages (docs/performance.md).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadStack, type LoadStackResult } from '../../src/config/load-stack.js';
import type { Stack } from '../../src/config/types.js';
import type { CheckOutcome, Observation, ReadResult } from '../../src/kinds/provider.js';
import { providers } from '../../src/kinds/providers.js';
import { buildGraph, findCycles, topologicalOrder, transitiveDependants } from '../../src/model/graph.js';
import { buildPlan } from '../../src/plan/planner.js';
import type { Plan } from '../../src/plan/types.js';
import { selectTargets } from '../../src/plan/targets.js';
import { formatDiagnosticsJson, formatDiagnosticsText } from '../../src/render/diagnostics.js';
import { toPlanJson } from '../../src/render/plan-json.js';
import { renderPlanMarkdown } from '../../src/render/plan-markdown.js';
import { renderPlanText } from '../../src/render/plan-text.js';
import { countScans } from '../helpers/scan-counter.js';
import { writeStackFiles } from '../helpers/stack-files.js';

const SMALL = 200;
const LARGE = 2_000;
/** Linear work grows LARGE / SMALL = 10 times; this leaves room for n·log n and fixed costs, never for n². */
const MAX_GROWTH = 15;

/** A stack of `n` blocks (the `resources:` and `checks:` lines), by shape. */
/** A stack's blocks: lines under `resources:` (and `checks:`), or `oneLine`, the whole `resources:` mapping on one line. */
type Shape = { resources: string[]; checks?: string[]; oneLine?: string };

const SHAPES: Record<string, (n: number) => Shape> = {
  'floating IPs retagged': (n) => ({
    resources: range(n).map((i) => `  ip_${i}: { type: cloud_floating_ip, project_id: 1, region_id: 76, floating_ip_id: ${uuid(i)}, tags: { env: prod, idx: "${i}" } }`),
  }),
  'every kind, over ten project/regions, gated by checks': (n) => ({
    resources: range(n - n / 10).map((i) => mixedBlock(i)),
    checks: range(n / 10).map((i) => `  subs_${i}: { type: streaming_video_subtitles, video_id: ${i + 1}, languages: [eng, ger] }`),
  }),
  'every block in one flow mapping on one line': (n) => ({
    resources: [],
    oneLine: `resources: { ${range(n)
      .map((i) => `ip_${i}: { type: cloud_floating_ip, project_id: 1, region_id: 76, floating_ip_id: ${uuid(i)}, tags: { env: prod, idx: "${i}" } }`)
      .join(', ')} }`,
  }),
  'a chain of dependencies': (n) => ({
    resources: range(n).map((i) => `  app_${i}: { type: fastedge_app, app_id: ${i + 1}, ensure: absent${i > 0 ? `, depends_on: [fastedge_app.app_${i - 1}]` : ''} }`),
  }),
  'one block that depends on all the others': (n) => ({
    resources: [
      ...range(n - 1).map((i) => `  app_${i}: { type: fastedge_app, app_id: ${i + 1}, ensure: absent }`),
      `  last: { type: fastedge_app, app_id: ${n}, ensure: absent, depends_on: [${range(n - 1)
        .map((i) => `fastedge_app.app_${i}`)
        .join(', ')}] }`,
    ],
  }),
};

/** Stacks that are invalid in every block, or as a whole. */
const INVALID_SHAPES: Record<string, (n: number) => { resources: string[] }> = {
  'every block depends on an address that is not in the stack': (n) => ({
    resources: range(n).map((i) => `  app_${i}: { type: fastedge_app, app_id: ${i + 1}, depends_on: [fastedge_app.gone_${i}] }`),
  }),
  'every block has a wrong field': (n) => ({ resources: range(n).map((i) => `  app_${i}: { type: fastedge_app, app_id: ${i + 1}, app_name: x${i} }`) }),
  'a dependency cycle through every block': (n) => ({
    resources: range(n).map((i) => `  app_${i}: { type: fastedge_app, app_id: ${i + 1}, depends_on: [fastedge_app.app_${(i + 1) % n}] }`),
  }),
};

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

function uuid(i: number): string {
  return `1f000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
}

function mixedBlock(i: number): string {
  const where = `project_id: ${1 + (i % 10)}, region_id: ${76 + (i % 10)}`;
  const gate = i % 7 === 0 ? `, depends_on: [streaming_video_subtitles.subs_${i % 10}]` : '';
  switch (i % 5) {
    case 0:
      return `  ip_${i}: { type: cloud_floating_ip, ${where}, floating_ip_id: ${uuid(i)}, tags: { env: prod }${gate} }`;
    case 1:
      return `  vm_${i}: { type: cloud_instance, ${where}, instance_id: ${uuid(i)}, flavor_id: g2-standard-4-8${gate} }`;
    case 2:
      return `  app_${i}: { type: fastedge_app, app_id: ${i + 1}, ensure: absent${gate} }`;
    case 3:
      return `  player_${i}: { type: streaming_player, player_id: ${i + 1}, ensure: absent${gate} }`;
    default:
      return `  mail_${i}: { type: iam_reseller_notification_setting, reseller_id: 7, notification_settings_id: ${i + 1}, notification_type: failed_login, email: ops${i}@example.com, enabled: true${gate} }`;
  }
}

function writeStack(shape: Shape): string {
  const text = ['version: 1', ...(shape.oneLine ? [shape.oneLine] : ['resources:', ...shape.resources]), ...(shape.checks ? ['checks:', ...shape.checks] : [])].join('\n');
  return join(writeStackFiles({ 'stack.yaml': `${text}\n` }), 'stack.yaml');
}

/** What the platform would answer for a block: a live resource that differs from it (or, for a player, none). */
function observe(block: Stack['resources'][number]): Observation {
  switch (block.type) {
    case 'cloud_floating_ip':
      return {
        exists: true,
        state: { floating_ip_id: block.attributes.floating_ip_id, floating_ip_address: null, status: 'ACTIVE', tags: [{ key: 'env', value: 'staging', read_only: false }] },
      };
    case 'cloud_instance':
      return { exists: true, state: { instance_id: block.attributes.instance_id, name: 'vm', status: 'ACTIVE', flavor_id: 'g2-standard-2-4' }, lockTaskId: null };
    case 'iam_reseller_notification_setting':
      return {
        exists: true,
        state: { notification_settings_id: block.attributes.notification_settings_id, notification_type: 'failed_login', email: 'old@example.com', enabled: false },
      };
    case 'streaming_player':
      return { exists: false };
    default:
      return { exists: true, state: { id: 1, name: 'app' } };
  }
}

/** Every stage of validate and plan on one stack, as `validate` and `plan` run them (the reads replaced by `observe`). */
async function planStages(path: string): Promise<Plan> {
  const loaded = await loadStack(path, {});
  const stack = loaded.stack;
  if (!stack) throw new Error(`invalid test stack: ${loaded.diagnostics[0]?.summary}`);
  const { selected } = selectTargets(stack, []);
  const reads = new Map<string, ReadResult>(stack.resources.map((b) => [b.address, { ok: true, observation: observe(b) }]));
  const checks = new Map<string, CheckOutcome>(stack.checks.map((c, i) => [c.address, { status: i % 2 === 0 ? 'pass' : 'fail', message: 'subtitles' }]));
  const plan = buildPlan({
    stack,
    selected,
    reads,
    checks,
    planners: providers.resources,
    baseUrl: 'https://api.example.com',
    createdAt: '2026-01-01T00:00:00Z',
    edgeformVersion: '0.0.0',
  });
  const text = renderPlanText(plan);
  renderPlanMarkdown(plan, text, { stackLabel: 'stack.yaml' });
  JSON.stringify(toPlanJson(plan));
  return plan;
}

/** validate on an invalid stack: load it and render every diagnostic as text and JSON. */
async function validateStages(path: string): Promise<LoadStackResult> {
  const loaded = await loadStack(path, {});
  formatDiagnosticsText(loaded.diagnostics, { files: loaded.files });
  formatDiagnosticsJson(loaded.diagnostics);
  return loaded;
}

/** The work of `stage` on a SMALL and a LARGE stack, and how much it grew. */
async function growth<T>(stage: (n: number) => Promise<T>): Promise<{ small: number; large: number; ratio: number; results: [T, T] }> {
  const small = await countScans(() => stage(SMALL));
  const large = await countScans(() => stage(LARGE));
  return { small: small.scanned, large: large.scanned, ratio: large.scanned / small.scanned, results: [small.result, large.result] };
}

describe('cost grows linearly with the size of the stack', () => {
  it.each(Object.entries(SHAPES))('validates and plans %s in linear work', async (_name, shape) => {
    const paths = new Map([SMALL, LARGE].map((n) => [n, writeStack(shape(n))]));
    const { ratio, results } = await growth((n) => planStages(paths.get(n)!));
    for (const plan of results) expect(plan.summary.change + plan.summary.destroy).toBeGreaterThan(0);
    expect(ratio).toBeLessThanOrEqual(MAX_GROWTH);
  });

  it.each(Object.entries(INVALID_SHAPES))('reports %s in linear work', async (_name, shape) => {
    const paths = new Map([SMALL, LARGE].map((n) => [n, writeStack(shape(n))]));
    const { ratio, results } = await growth((n) => validateStages(paths.get(n)!));
    for (const loaded of results) expect(loaded.stack).toBeUndefined();
    expect(ratio).toBeLessThanOrEqual(MAX_GROWTH);
  });

  it('counts a scan inside a loop as quadratic (the measure is not blind)', async () => {
    const { ratio } = await growth(async (n) => {
      const items = range(n);
      return items.filter((i) => items.includes(i + 1)).length;
    });
    expect(ratio).toBeGreaterThan(50);
  });
});

describe('dependency graph walks grow linearly', () => {
  /** `n` nodes: independent, or each depending on the one before. */
  const graphOf = (n: number, chained: boolean) => buildGraph(range(n).map((i) => ({ address: `a.n${i}`, dependsOn: chained && i > 0 ? [`a.n${i - 1}`] : [] })));

  it('orders, and finds no cycle in, a long chain in linear work', async () => {
    const { ratio } = await growth(async (n) => {
      const graph = graphOf(n, true);
      return [topologicalOrder(graph), findCycles(graph)];
    });
    expect(ratio).toBeLessThanOrEqual(MAX_GROWTH);
  });

  it('finds the dependants of every failed node of a wide graph in linear work in all (apply with many failures)', async () => {
    const { ratio } = await growth(async (n) => {
      const graph = graphOf(n, false);
      return graph.nodes.map((address) => transitiveDependants(graph, address));
    });
    expect(ratio).toBeLessThanOrEqual(MAX_GROWTH);
  });

  it('builds the graph of a block with thousands of dependencies in linear work', async () => {
    const { ratio } = await growth(async (n) =>
      buildGraph([...range(n).map((i) => ({ address: `a.n${i}`, dependsOn: [] })), { address: 'a.all', dependsOn: range(n).map((i) => `a.n${i}`) }]),
    );
    expect(ratio).toBeLessThanOrEqual(MAX_GROWTH);
  });

  it('reports a cycle through thousands of nodes in linear work', async () => {
    const { ratio, results } = await growth(async (n) => findCycles(buildGraph(range(n).map((i) => ({ address: `a.n${i}`, dependsOn: [`a.n${(i + 1) % n}`] })))));
    expect(results[1][0]).toHaveLength(LARGE + 1);
    expect(ratio).toBeLessThanOrEqual(MAX_GROWTH);
  });
});
