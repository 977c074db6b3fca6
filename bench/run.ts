/**
 * `npm run bench`: what a user waits for, measured the way a user runs edgeform. The CLI and
 * the emulator run as processes of their own (the emulator with a fixed latency), each figure
 * is the median of several runs, and each is printed beside its ideal measured in the same run
 * (N·L/P for one request per resource, list pages × L for grouped reads, `node -e 0` for
 * start-up; L is the measured time of a trivial request) and the ratio. Results go to
 * bench/results.json; the exit code is 1 when any target is missed. docs/performance.md lists
 * the targets, the figures and how to reproduce them.
 *
 * Options: `--runs N` (default 3) repetitions of each process measured; `--only a,b` runs only
 * the rows whose ids start with one of these words (startup, reads, compute, apply, schedule,
 * import, zonefile); `--base DIR` also runs another built checkout's CLI (`DIR/dist/bin/edgeform.js`, an
 * earlier release) alternately with this one against the same emulator, and adds a `-cpu` row
 * beside each figure it can run: this build's CPU time against the base build's (issue 33:
 * at most the previous release's). Rows of kinds the base build lacks are not compared.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readCpuProfile, timeInside } from './cpu-profile.js';
import { createsIdealMs } from './ideals.js';
import { DEFAULT_MAX_TASKS as APPLY_MAX_TASKS } from '../src/cli/plan-stack.js';
import { CLI, median, measureLatency, runCli, runNode, startEmulator, type EmulatorProcess, type Run } from './processes.js';
import { balancerWorld, deleteAppsWorld, dnsWorld, fleetWorld, floatingIpWorld, identityWorld, mixedWorld, resizeWorld, tinyWorld, zoneFileWorld, type World } from './worlds.js';

/** One measured figure with its ideal and its target. */
interface Row {
  id: string;
  what: string;
  unit: string;
  /** The median of the runs. */
  value: number;
  samples: number[];
  ideal: number;
  idealIs: string;
  /** value ≤ target is met. */
  target: number;
  targetIs: string;
  met: boolean;
  /** Anything else worth reading beside the figure. */
  note?: string;
  /** The machine's 1-minute load average when the row was recorded: what a wall time means here. */
  load?: number;
}

const LATENCY_MS = 20;
const READ_PARALLELISM = 16;
/** Requests a resize takes: the plan's flavor check (GET available_flavors) and apply's changeflavor. */
const REQUESTS_PER_RESIZE = 2;

/** apply's default --parallelism: the 200 resizes run as a user runs them. */
const APPLY_PARALLELISM = 10;
const TASK_DURATION_MS = 2_000;
/**
 * The executor's scheduling steps (src/apply/executor.ts): the loop, the pass over the ready
 * steps and the one place a step finishes, with the walk they drive. Everything they call
 * counts as scheduling except SCHEDULING_ENDS: an action's own work and the view's hooks.
 */
const SCHEDULING_STEPS = ['executePlan', 'startReadySteps', 'settleStep'];
const SCHEDULING_ENDS = ['runAction', 'onStart', 'onProgress', 'onPaused', 'onFinish', 'onRunError'];
/** Issue 20: apply of 10,000 independent no-wait changes spends at most this share of its time scheduling. */
const SCHEDULING_SHARE_TARGET = 0.1;
/** What edgeform's own work on 1,000 resources (start-up, parsing, planning, rendering) may add to a plan's ideal. */
const LOCAL_ALLOWANCE_MS = 500;

const argv = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const at = argv.indexOf(`--${name}`);
  return at === -1 ? undefined : argv[at + 1];
};
const RUNS = Number(option('runs') ?? 3);
const ONLY = option('only')?.split(',');
const wanted = (id: string) => !ONLY || ONLY.some((prefix) => id.startsWith(prefix));
/** `--base DIR`: the executable of another built checkout, measured beside this one. */
const BASE = option('base');
const BASE_CLI = BASE === undefined ? undefined : BASE.endsWith('.js') ? resolve(BASE) : resolve(BASE, 'dist/bin/edgeform.js');
if (BASE_CLI !== undefined && !existsSync(BASE_CLI)) throw new Error(`--base: ${BASE_CLI} does not exist (build that checkout first: npm ci && npm run build)`);

const dir = mkdtempSync(join(tmpdir(), 'edgeform-bench-'));
const rows: Row[] = [];
const emulators: EmulatorProcess[] = [];

function record(row: Omit<Row, 'met' | 'load'>): void {
  const full: Row = { ...row, met: row.value <= row.target, load: loadavg()[0]! };
  rows.push(full);
  const ratio = full.ideal > 0 ? `×${(full.value / full.ideal).toFixed(2)}` : '';
  // A wall time is read beside the load it was measured at (CPU times, in the notes, much less so).
  const load = full.unit === 'ms' ? ` (load ${full.load!.toFixed(1)})` : '';
  process.stdout.write(
    `${full.met ? 'ok  ' : 'MISS'} ${full.what}: ${format(full.value, full.unit)}${load} | ideal ${format(full.ideal, full.unit)} (${full.idealIs}) ${ratio} | target ≤ ${format(full.target, full.unit)} (${full.targetIs})${full.note ? `\n     ${full.note}` : ''}\n`,
  );
}

function format(value: number, unit: string): string {
  if (unit === 'ms') return value >= 10_000 ? `${(value / 1000).toFixed(1)} s` : `${value.toFixed(0)} ms`;
  if (unit === 'MB') return `${value.toFixed(0)} MB`;
  if (unit === '%') return `${value.toFixed(1)} %`;
  return `${value < 0.1 ? value.toFixed(3) : value.toFixed(2)} ${unit}`;
}

/** Runs a CLI invocation RUNS times and fails the benchmark if any run fails. */
async function repeat(label: string, before: () => Promise<void>, args: string[], env: Record<string, string> = {}, usage = false): Promise<Run[]> {
  return (await repeatBoth(label, before, args, env, usage, false)).runs;
}

/** The runs of this build and, with --base (and `compare`), of the base build, alternated. */
interface BothRuns {
  runs: Run[];
  base?: Run[];
}

/**
 * Runs a CLI invocation RUNS times, alternated with the base build's when there is one and
 * `compare` (so that both meet the same machine), every run reporting its CPU time and peak RSS
 * when `usage`; fails the benchmark if any run fails.
 */
async function repeatBoth(
  label: string,
  before: () => Promise<void>,
  args: string[],
  env: Record<string, string> = {},
  usage = true,
  compare = true,
  after?: (run: Run, base: boolean) => Promise<void>,
): Promise<BothRuns> {
  const runs: Run[] = [];
  const base: Run[] = [];
  const withBase = compare && BASE_CLI !== undefined;
  for (let i = 0; i < RUNS; i++) {
    for (const cli of withBase ? [undefined, BASE_CLI] : [undefined]) {
      await before();
      const run = await runCli(args, { env, usageDir: usage || cli !== undefined ? dir : undefined, cli });
      if (run.code !== 0) throw new Error(`${label}: ${cli ?? 'edgeform'} ${args.join(' ')} exited ${run.code}\n${run.stderr.slice(-2000)}`);
      (cli === undefined ? runs : base).push(run);
      await after?.(run, cli !== undefined);
    }
  }
  return withBase ? { runs, base } : { runs };
}

/**
 * Issue 33: the CPU time of this build's runs against the base build's (--base) of the same
 * invocation, run alternately: at most the base's. Recorded only when both were measured.
 */
function recordCpu(id: string, what: string, both: BothRuns): void {
  if (both.base === undefined) return;
  const cpuOf = (runs: Run[]) => runs.map((r) => r.usage!.cpuMs);
  const base = median(cpuOf(both.base));
  const walls = (runs: Run[]) => median(runs.map((r) => r.wallMs)).toFixed(0);
  const rss = (runs: Run[]) => median(runs.map((r) => r.usage!.maxRssBytes / 1e6)).toFixed(0);
  record({
    id: `${id}-cpu`,
    what: `CPU of ${what}, beside the base build`,
    unit: 'ms',
    value: median(cpuOf(both.runs)),
    samples: cpuOf(both.runs),
    ideal: base,
    idealIs: 'the base build (--base), run alternately',
    target: base,
    targetIs: "issue 33: at most the previous release's",
    note: `wall ${walls(both.runs)} ms (base ${walls(both.base)} ms), peak RSS ${rss(both.runs)} MB (base ${rss(both.base)} MB)`,
  });
}

const nothing = async () => {};

/**
 * `node -e 0`, `edgeform --version` and `validate` of a one-block stack (and the base build's,
 * with --base), interleaved so all meet the same machine.
 */
async function startUp(tiny: World): Promise<number> {
  const node: number[] = [];
  const version: number[] = [];
  const validate: BothRuns = { runs: [], ...(BASE_CLI === undefined ? {} : { base: [] }) };
  const n = Math.max(7, RUNS * 3);
  const measureValidate = wanted('startup-validate');
  for (let i = 0; i < n; i++) {
    node.push((await runNode(['-e', '0'])).wallMs);
    const run = await runCli(['--version']);
    if (run.code !== 0) throw new Error(`edgeform --version exited ${run.code}`);
    version.push(run.wallMs);
    if (!measureValidate) continue;
    for (const cli of validate.base ? [undefined, BASE_CLI] : [undefined]) {
      const checked = await runCli(['validate', tiny.stack], { usageDir: dir, cli });
      if (checked.code !== 0) throw new Error(`validate of the one-block stack exited ${checked.code}\n${checked.stderr}`);
      (cli === undefined ? validate.runs : validate.base!).push(checked);
    }
  }
  const nodeMs = median(node);
  if (wanted('startup-version')) {
    record({
      id: 'startup-version',
      what: 'edgeform --version',
      unit: 'ms',
      value: median(version),
      samples: version,
      ideal: nodeMs,
      idealIs: 'node -e 0',
      target: 1.5 * nodeMs,
      targetIs: '1.5 × node -e 0',
    });
  }
  if (measureValidate) {
    const walls = validate.runs.map((r) => r.wallMs);
    record({
      id: 'startup-validate',
      what: 'validate of a one-block stack',
      unit: 'ms',
      value: median(walls),
      samples: walls,
      ideal: nodeMs,
      idealIs: 'node -e 0',
      target: 2 * nodeMs,
      targetIs: 'issue 33: 2 × node -e 0',
      note: `CPU ${median(validate.runs.map((r) => r.usage!.cpuMs)).toFixed(0)} ms, peak RSS ${median(validate.runs.map((r) => r.usage!.maxRssBytes / 1e6)).toFixed(0)} MB`,
    });
    recordCpu('startup-validate', 'validate of a one-block stack', validate);
  }
  return nodeMs;
}

/** Requests a plan sent, per resource, from the emulator's request log. */
async function requestsPerResource(emulator: EmulatorProcess, world: World): Promise<number> {
  return (await emulator.requests()).length / world.resources;
}

/** Plan of a world against the emulator at LATENCY_MS: requests per resource and wall. */
async function planReads(id: string, label: string, world: World, nodeMs: number, requestTarget?: { value: number; is: string }): Promise<void> {
  const emulator = await startEmulator({ fixtures: world.fixtures, latencyMs: LATENCY_MS });
  emulators.push(emulator);
  const L = await measureLatency(emulator, world.probe);
  const perRequest: number[] = [];
  const both = await repeatBoth(label, nothing, ['plan', world.stack, '--parallelism', String(READ_PARALLELISM)], emulator.env);
  const runs = both.runs;
  // Requests are counted on one more run, so that reading the log is not timed.
  await emulator.reset();
  const counted = await runCli(['plan', world.stack, '--parallelism', String(READ_PARALLELISM)], { env: emulator.env });
  if (counted.code !== 0) throw new Error(`${label}: plan exited ${counted.code}\n${counted.stderr.slice(-2000)}`);
  perRequest.push(await requestsPerResource(emulator, world));
  const stderr = runs.map((r) => r.stderr.trim()).find((text) => text !== '');
  const idealRequests = world.listPages / world.resources;
  record({
    id: `${id}-requests`,
    what: `requests per resource, plan of ${label}`,
    unit: 'req/resource',
    value: perRequest[0]!,
    samples: perRequest,
    ideal: idealRequests,
    idealIs: `${world.listPages} list page${world.listPages === 1 ? '' : 's'} for ${world.resources} resources`,
    target: requestTarget?.value ?? 1.2 * idealRequests,
    targetIs: requestTarget?.is ?? '1.2 × ideal',
  });
  const walls = runs.map((r) => r.wallMs);
  const grouped = world.listPages * L;
  const perResource = (world.resources * L) / READ_PARALLELISM;
  const value = median(walls);
  record({
    id: `${id}-wall`,
    what: `plan wall, ${label}, L = ${LATENCY_MS} ms, --parallelism ${READ_PARALLELISM}`,
    unit: 'ms',
    value,
    samples: walls,
    ideal: nodeMs + grouped,
    idealIs: `node -e 0 + ${world.listPages} page${world.listPages === 1 ? '' : 's'} × L`,
    target: 1.2 * (nodeMs + grouped) + LOCAL_ALLOWANCE_MS,
    targetIs: `1.2 × ideal + ${LOCAL_ALLOWANCE_MS} ms of edgeform's own work`,
    note: `L = ${L.toFixed(1)} ms measured; against one request per resource (N·L/P = ${perResource.toFixed(0)} ms) the wall is ×${(value / perResource).toFixed(2)}${stderr ? `; stderr: ${stderr.split('\n')[0]}` : ''}`,
  });
  recordCpu(id, `plan of ${label}`, both);
}

/**
 * Drift of a fleet (`drift --stacks`, issue 35): the requests it sends beside the list pages of
 * its places (each list of a place read once for the whole sweep, not once per stack), and its
 * wall beside that of one stack of as many blocks over the same places, both against the
 * emulator at LATENCY_MS.
 */
async function fleetDrift(fleet: World, single: World): Promise<void> {
  const label = `${fleet.resources / 10} stacks of 10 floating IPs over 5 project/regions`;
  const emulator = await startEmulator({ fixtures: fleet.fixtures, latencyMs: LATENCY_MS });
  emulators.push(emulator);
  const args = ['drift', '--stacks', fleet.stack, '--format', 'json', '--parallelism', String(READ_PARALLELISM)];
  const runs = await repeat(`drift of ${label}`, nothing, args, emulator.env);
  await emulator.reset();
  const counted = await runCli(args, { env: emulator.env });
  if (counted.code !== 0) throw new Error(`drift --stacks exited ${counted.code}\n${counted.stderr.slice(-2000)}`);
  const requests = (await emulator.requests()).length;
  record({
    id: 'fleet-drift-requests',
    what: `requests, drift --stacks of ${label}`,
    unit: 'requests',
    value: requests,
    samples: [requests],
    ideal: fleet.listPages,
    idealIs: `the list pages of the 5 places`,
    target: 2 * fleet.listPages,
    targetIs: '2 × ideal (issue 35)',
  });
  await emulator.stop();
  emulators.splice(emulators.indexOf(emulator), 1);
  const other = await startEmulator({ fixtures: single.fixtures, latencyMs: LATENCY_MS });
  emulators.push(other);
  const alone = await repeat(
    `drift of one stack of ${single.resources} blocks`,
    nothing,
    ['drift', single.stack, '--format', 'json', '--parallelism', String(READ_PARALLELISM)],
    other.env,
  );
  const ideal = median(alone.map((r) => r.wallMs));
  const value = median(runs.map((r) => r.wallMs));
  record({
    id: 'fleet-drift-wall',
    what: `drift --stacks wall, ${label}, L = ${LATENCY_MS} ms`,
    unit: 'ms',
    value,
    samples: runs.map((r) => r.wallMs),
    ideal,
    idealIs: `drift of one stack of ${single.resources} blocks over the same places`,
    target: 2 * ideal,
    targetIs: '2 × ideal (issue 35)',
  });
}

/** validate and plan of `world` with no latency: the runs of each (and of the base build, when `compare`). */
async function measureCompute(world: World, compare = true): Promise<{ validate: BothRuns; plan: BothRuns }> {
  const validate = await repeatBoth('validate', nothing, ['validate', world.stack], {}, true, compare);
  const emulator = await startEmulator({ fixtures: world.fixtures, latencyMs: 0 });
  emulators.push(emulator);
  const plan = await repeatBoth('plan', nothing, ['plan', world.stack], emulator.env, true, compare);
  for (const run of [plan.runs[0]!, ...(plan.base ?? []).slice(0, 1)]) {
    if (!run.stdout.includes(`${world.resources} to change`)) throw new Error(`plan of ${world.resources} resources did not plan ${world.resources} changes`);
  }
  await emulator.stop();
  emulators.splice(emulators.indexOf(emulator), 1);
  return { validate, plan };
}

const cpu = (runs: Run[]) => `CPU ${median(runs.map((r) => r.usage!.cpuMs)).toFixed(0)} ms`;
const peakRss = (runs: Run[]) => `peak RSS ${median(runs.map((r) => r.usage!.maxRssBytes / 1e6)).toFixed(0)} MB`;

/** The median peak RSS of `node -e 0`: the ideal of the memory rows. */
const nodeRss = async () => median((await Promise.all([0, 1, 2].map(() => runNode(['-e', '0'], { usageDir: dir })))).map((r) => r.usage!.maxRssBytes / 1e6));

/** A plan's wall against issue 10's 1 s and its peak RSS against 200 MB (ids `${id}-wall`, `${id}-rss`). */
function recordPlan(id: string, what: string, plan: Run[], nodeMs: number, nodeMb: number, targetIs: string): void {
  record({
    id: `${id}-wall`,
    what: `${what}, no latency`,
    unit: 'ms',
    value: median(plan.map((r) => r.wallMs)),
    samples: plan.map((r) => r.wallMs),
    ideal: nodeMs,
    idealIs: 'node -e 0',
    target: 1000,
    targetIs,
    note: `${cpu(plan)} in the CLI; the emulator answers in its own process`,
  });
  const rss = plan.map((r) => r.usage!.maxRssBytes / 1e6);
  record({
    id: `${id}-rss`,
    what: `${what}, peak RSS`,
    unit: 'MB',
    value: median(rss),
    samples: rss,
    ideal: nodeMb,
    idealIs: 'node -e 0',
    target: 200,
    targetIs,
  });
}

/**
 * validate and plan of 10,000 resources with no latency: wall and peak memory; then of twice as
 * many, whose cost must stay linear: each figure beside twice the 10,000 one (its ideal), at most
 * 2.1 times it (issue 20: a stack once fell back to a slower reading past about 15,600 blocks).
 */
async function compute(world: World, double: World, nodeMs: number): Promise<void> {
  const nodeMb = await nodeRss();
  const { validate: validateBoth, plan: planBoth } = await measureCompute(world);
  const validate = validateBoth.runs;
  const plan = planBoth.runs;
  const n = world.resources.toLocaleString('en-US');
  recordPlan('compute-plan', `plan of ${n} resources`, plan, nodeMs, nodeMb, 'issue 10');
  recordCpu('compute-plan', `plan of ${n} resources`, planBoth);
  record({
    id: 'compute-validate-wall',
    what: `validate of the same ${n} resources`,
    unit: 'ms',
    value: median(validate.map((r) => r.wallMs)),
    samples: validate.map((r) => r.wallMs),
    ideal: nodeMs,
    idealIs: 'node -e 0',
    target: 500,
    targetIs: 'issue 10',
    note: `${cpu(validate)}; ${peakRss(validate)}`,
  });
  recordCpu('compute-validate', `validate of ${n} resources`, validateBoth);
  const twice = await measureCompute(double);
  const m = double.resources.toLocaleString('en-US');
  for (const [command, both, base] of [
    ['validate', twice.validate, validate],
    ['plan', twice.plan, plan],
  ] as const) {
    const runs = both.runs;
    const linear = (median(base.map((r) => r.wallMs)) * double.resources) / world.resources;
    const id = `compute-${command}-${double.resources / 1000}k`;
    record({
      id: `${id}-wall`,
      what: `${command} of ${m} resources, no latency`,
      unit: 'ms',
      value: median(runs.map((r) => r.wallMs)),
      samples: runs.map((r) => r.wallMs),
      ideal: linear,
      idealIs: `linear: ${double.resources / world.resources} × the ${n} figure`,
      target: 1.05 * linear,
      targetIs: `issue 20: 2.1 × the ${n} figure`,
      note: `${cpu(runs)} (${n}: ${cpu(base)}); ${peakRss(runs)} (${n}: ${peakRss(base)})`,
    });
    recordCpu(id, `${command} of ${m} resources`, both);
  }
}

/** Issue 30: peak memory of validate, plan and apply stays within this many times the input's size, plus ZONE_FILE_RSS_ALLOWANCE_MB. */
const ZONE_FILE_RSS_PER_INPUT_BYTE = 10;
const ZONE_FILE_RSS_ALLOWANCE_MB = 200;

/**
 * validate, plan (text) and plan --format json of the largest zone file a stack may name, against
 * a platform holding its zone empty (so every record set is a create): each one's peak RSS beside
 * `node -e 0`'s, at most 10 × the input's size + 200 MB (issue 30), and its wall and output size
 * in the note. One run each (a run takes a minute or more); the JSON plan's hundreds of megabytes
 * are counted, not kept.
 */
async function zoneFile(nodeMs: number): Promise<void> {
  const world = zoneFileWorld(dir);
  const nodeRss = median((await Promise.all([0, 1, 2].map(() => runNode(['-e', '0'], { usageDir: dir })))).map((r) => r.usage!.maxRssBytes / 1e6));
  const emulator = await startEmulator({ fixtures: world.fixtures, latencyMs: 0 });
  emulators.push(emulator);
  const target = (ZONE_FILE_RSS_PER_INPUT_BYTE * world.inputBytes) / 1e6 + ZONE_FILE_RSS_ALLOWANCE_MB;
  const sets = (world.resources - 1).toLocaleString('en-US');
  for (const [id, label, args, env] of [
    ['zonefile-validate-rss', 'validate', ['validate', world.stack], {}],
    ['zonefile-plan-rss', 'plan', ['plan', world.stack], emulator.env],
    ['zonefile-plan-json-rss', 'plan --format json', ['plan', world.stack, '--format', 'json'], emulator.env],
  ] as const) {
    if (!wanted(id)) continue;
    const run = await runCli([...args], { env, usageDir: dir, discardStdout: true });
    if (run.code !== 0) throw new Error(`${label} of the largest zone file exited ${run.code}\n${run.stderr.slice(-2000)}`);
    const rss = run.usage!.maxRssBytes / 1e6;
    record({
      id,
      what: `${label} of the largest zone file (${(world.inputBytes / 2 ** 20).toFixed(2)} MiB, ${sets} record sets), peak RSS`,
      unit: 'MB',
      value: rss,
      samples: [rss],
      ideal: nodeRss,
      idealIs: 'node -e 0',
      target,
      targetIs: `issue 30: ${ZONE_FILE_RSS_PER_INPUT_BYTE} × the input + ${ZONE_FILE_RSS_ALLOWANCE_MB} MB`,
      note: `wall ${(run.wallMs / 1000).toFixed(1)} s (node -e 0: ${nodeMs.toFixed(0)} ms), CPU ${(run.usage!.cpuMs / 1000).toFixed(1)} s, stdout ${(run.stdoutBytes / 1e6).toFixed(1)} MB`,
    });
  }
  await emulator.stop();
  emulators.splice(emulators.indexOf(emulator), 1);
}

/** Plan of `world`'s DNS record sets (all to update) with no latency: issue 33's 1 s and 200 MB. */
async function computeDns(world: World, nodeMs: number): Promise<void> {
  const nodeMb = await nodeRss();
  // The base build may predate the DNS kinds: this row is not compared.
  const { plan } = await measureCompute(world, false);
  recordPlan('compute-dns-plan', `plan of ${world.resources.toLocaleString('en-US')} DNS record sets in one zone`, plan.runs, nodeMs, nodeMb, 'issue 33');
}

/** apply of 200 resizes whose tasks take TASK_DURATION_MS: how late each end is noticed, and the wall. */
async function applyResizes(world: World): Promise<void> {
  const emulator = await startEmulator({ fixtures: world.fixtures, latencyMs: LATENCY_MS, taskDurationMs: TASK_DURATION_MS });
  emulators.push(emulator);
  const L = await measureLatency(emulator, world.probe);
  const lateness: number[] = [];
  // How late each end was noticed, from this build's runs (the mutation log is read after the run, not timed).
  const noticed = async (run: Run, base: boolean) => {
    if (base) return;
    const ended = new Map((await emulator.mutations()).filter((m) => m.taskId !== null).map((m) => [m.taskId!, m.time]));
    const late: number[] = [];
    for (const line of run.stdout.split('\n')) {
      if (!line.startsWith('{')) continue;
      const event = JSON.parse(line) as { type: string; timestamp: string; task_ids?: string[] };
      if (event.type !== 'apply_complete') continue;
      const end = Math.max(...(event.task_ids ?? []).map((t) => ended.get(t) ?? Number.NaN));
      if (Number.isFinite(end)) late.push(Date.parse(event.timestamp) - end);
    }
    if (late.length !== world.resources) throw new Error(`apply reported ${late.length} finished resizes of ${world.resources}`);
    lateness.push(median(late));
  };
  const both = await repeatBoth('apply', () => emulator.reset(), ['apply', world.stack, '--auto-approve', '--format', 'json'], emulator.env, true, true, noticed);
  const walls = both.runs.map((r) => r.wallMs);
  const noticeTarget = Math.max(0.1 * TASK_DURATION_MS, 250);
  record({
    id: 'apply-noticed',
    what: `apply ${world.resources} resizes, ${TASK_DURATION_MS / 1000} s tasks: completion reported after the task ended (median)`,
    unit: 'ms',
    value: median(lateness),
    samples: lateness,
    ideal: L,
    idealIs: 'one request: the poll that sees it',
    target: noticeTarget,
    targetIs: 'max(10% of the task, 250 ms)',
    note: `${((median(lateness) / TASK_DURATION_MS) * 100).toFixed(0)}% of the task's duration`,
  });
  // Issue 10 set this ideal as the task plus one request a resize (N·L/P). A resize takes two:
  // the plan asks each instance which flavors it may take (issue 4: a flavor it does not offer
  // is a plan error, before anything is sent; the platform answers that per instance, and has no
  // list of it), then apply sends its changeflavor. Against one request a resize, the two leave
  // 0.2·task − 0.8·N·L/P (about 45 ms at L = 22 ms) for start-up, the plan's list read, noticing
  // the last task and exiting, less than node takes to start; so the ideal counts both
  // (docs/performance.md).
  const perResize = TASK_DURATION_MS + (world.resources * L) / APPLY_PARALLELISM;
  const ideal = TASK_DURATION_MS + (REQUESTS_PER_RESIZE * world.resources * L) / APPLY_PARALLELISM;
  record({
    id: 'apply-wall',
    what: `apply ${world.resources} resizes, ${TASK_DURATION_MS / 1000} s tasks, wall (default --parallelism ${APPLY_PARALLELISM})`,
    unit: 'ms',
    value: median(walls),
    samples: walls,
    ideal,
    idealIs: `task + ${REQUESTS_PER_RESIZE}N·L/P: the plan's flavor check and the changeflavor, L = ${L.toFixed(1)} ms`,
    target: 1.2 * ideal,
    targetIs: '1.2 × ideal',
    note: `issue 10's ideal counts one request a resize (task + N·L/P = ${perResize.toFixed(0)} ms): the wall is ×${(median(walls) / perResize).toFixed(2)} of it`,
  });
  recordCpu('apply-wall', `apply of ${world.resources} resizes`, both);
}

/** The identity world of issue 20: blocks found by ownership tags and by name, re-planned and created. */
const IDENTITY_FIPS = 480;
const IDENTITY_APPS = 1_000;
const IDENTITY_LABEL = `${IDENTITY_FIPS} floating IPs found by ownership tags and ${IDENTITY_APPS.toLocaleString('en-US')} FastEdge apps found by name`;
/** The task duration of the create row: floating IP creates are tasks. */
const CREATE_TASK_MS = 500;

/** What an apply that creates a world is measured against (see applyCreates). */
interface CreatesRow {
  id: string;
  label: string;
  world: World;
  /** How long each create's platform task takes; 0: the creates start no task (DNS, FastEdge). */
  taskMs: number;
  /** How many of the creates start a task (and hold a task slot while it runs). */
  taskCreates: number;
  /** The requests per resource it may take, and why. */
  requests: { ideal: number; idealIs: string; target: number; targetIs: string };
  /** Whether the base build can apply this world (it may predate the kind). */
  compare: boolean;
}

/**
 * apply of a world against a platform holding none of it: every block is created, at the
 * defaults (--parallelism 10, --max-tasks 500). Requests per resource, counted by the emulator,
 * against the row's ideal; the wall against createsIdealMs (issue 33's task + N·L/P, with the
 * start-up and the plan's read every apply has, and the rounds of task slots when those bind),
 * at most 1.2 times it. The note gives the CLI's CPU time and the emulator's (its own process,
 * on the same cores: what it spends answering is in the wall too).
 */
async function applyCreates(row: CreatesRow, nodeMs: number): Promise<void> {
  const { world } = row;
  const emulator = await startEmulator({ fixtures: world.fixtures, latencyMs: LATENCY_MS, ...(row.taskMs > 0 ? { taskDurationMs: row.taskMs } : {}) });
  emulators.push(emulator);
  const L = await measureLatency(emulator, world.probe);
  const perResource: number[] = [];
  let breakdown = '';
  const emulatorCpuMs: number[] = [];
  let emulatorCpuBefore = emulator.cpuMs();
  const count = async (_run: Run, base: boolean) => {
    const emulatorCpuNow = emulator.cpuMs();
    if (!base && emulatorCpuBefore !== undefined && emulatorCpuNow !== undefined) emulatorCpuMs.push(emulatorCpuNow - emulatorCpuBefore);
    if (base) return;
    const requests = await emulator.requests();
    perResource.push(requests.length / world.resources);
    if (breakdown !== '') return;
    const byRoute = new Map<string, number>();
    for (const r of requests) byRoute.set(`${r.method} ${r.route}`, (byRoute.get(`${r.method} ${r.route}`) ?? 0) + 1);
    breakdown = [...byRoute]
      .sort((a, b) => b[1] - a[1])
      .map(([route, n]) => `${n} ${route}`)
      .join(', ');
  };
  const reset = async () => {
    await emulator.reset();
    emulatorCpuBefore = emulator.cpuMs();
  };
  const both = await repeatBoth(row.label, reset, ['apply', world.stack, '--auto-approve', '--format', 'json'], emulator.env, true, row.compare, count);
  record({
    id: row.id,
    what: `requests per resource, apply creating ${row.label}`,
    unit: 'req/resource',
    value: median(perResource),
    samples: perResource,
    ...row.requests,
    note: `first run: ${breakdown}`,
  });
  const walls = both.runs.map((r) => r.wallMs);
  const shape = { creates: world.resources, taskCreates: row.taskCreates, taskMs: row.taskMs, listPages: world.listPages, latencyMs: L, parallelism: APPLY_PARALLELISM };
  const ideal = createsIdealMs({ ...shape, maxTasks: APPLY_MAX_TASKS, startupMs: nodeMs });
  const issueIdeal = row.taskMs + (world.resources * L) / APPLY_PARALLELISM;
  const slotsBind = ideal > createsIdealMs({ ...shape, maxTasks: Number.POSITIVE_INFINITY, startupMs: nodeMs });
  const emulatorCpu = emulatorCpuMs.length === 0 ? '' : `, the emulator's ${median(emulatorCpuMs).toFixed(0)} ms`;
  record({
    id: `${row.id}-wall`,
    what: `apply creating ${row.label}, wall (default --parallelism ${APPLY_PARALLELISM} and --max-tasks)`,
    unit: 'ms',
    value: median(walls),
    samples: walls,
    ideal,
    idealIs: `node -e 0 + the plan's list pages + ${
      slotsBind
        ? `${Math.ceil(row.taskCreates / APPLY_MAX_TASKS)} rounds of ${APPLY_MAX_TASKS} task slots × (task + 4L)`
        : `${row.taskMs > 0 ? `one task (${row.taskMs} ms) + ` : ''}N·L/P`
    }, L = ${L.toFixed(1)} ms`,
    target: 1.2 * ideal,
    targetIs: 'issue 33: 1.2 × ideal',
    note: `CPU ${median(both.runs.map((r) => r.usage!.cpuMs)).toFixed(0)} ms${emulatorCpu}; against issue 33's ideal alone (${row.taskMs > 0 ? 'task + ' : ''}N·L/P = ${issueIdeal.toFixed(0)} ms) the wall is ×${(median(walls) / issueIdeal).toFixed(2)}`,
  });
  recordCpu(row.id, `apply creating ${row.label}`, both);
}

/** The identity world's create row (issue 20's requests, issue 33's wall). */
function identityCreates(world: World, fips: number, label: string, id: string): CreatesRow {
  const ideal = (world.resources + fips) / world.resources;
  return {
    id,
    label,
    world,
    taskMs: CREATE_TASK_MS,
    taskCreates: fips,
    requests: {
      ideal,
      idealIs: `one create per resource and one task poll per floating IP (${world.resources + fips} for ${world.resources})`,
      target: 1.2 * ideal,
      targetIs: '1.2 × ideal (issue 20)',
    },
    compare: true,
  };
}

/**
 * The DNS create row: one request a create besides the zones' list pages (the plan's, and the
 * read before acting), at most 1.05 a create plus those pages (issue 33).
 */
function dnsCreates(world: World, id: string, label: string): CreatesRow {
  const pages = 2 * world.listPages;
  return {
    id,
    label,
    world,
    taskMs: 0,
    taskCreates: 0,
    requests: {
      ideal: (world.resources + pages) / world.resources,
      idealIs: `one create per record set and ${pages} list pages (each zone listed by the plan and before acting)`,
      target: (1.05 * world.resources + pages) / world.resources,
      targetIs: 'issue 33: 1.05 a create plus the list pages',
    },
    compare: false,
  };
}

/**
 * `import --all` of a world's platform (the 10k world: 10,000 resources of every kind over ten
 * project/regions) into a file, at L = 20 ms: wall, peak RSS and requests. Issue 33: at most the
 * previous release's time and memory, which --base measures alternately; without it the rows
 * only report (their ideal: start-up and the world's list pages one after another).
 */
async function importAll(world: World, nodeMs: number): Promise<void> {
  const emulator = await startEmulator({ fixtures: world.fixtures, latencyMs: LATENCY_MS });
  emulators.push(emulator);
  const L = await measureLatency(emulator, world.probe);
  const out = join(dir, 'imported.yaml');
  const requests: { runs: number[]; base: number[] } = { runs: [], base: [] };
  const count = async (_run: Run, base: boolean) => void (base ? requests.base : requests.runs).push((await emulator.requests()).length);
  const both = await repeatBoth('import --all', () => emulator.reset(), ['import', '--all', '--out', out, '--force'], emulator.env, true, true, count);
  const ideal = nodeMs + world.listPages * L;
  const walls = both.runs.map((r) => r.wallMs);
  const rss = both.runs.map((r) => r.usage!.maxRssBytes / 1e6);
  const baseWall = both.base && median(both.base.map((r) => r.wallMs));
  const baseRss = both.base && median(both.base.map((r) => r.usage!.maxRssBytes / 1e6));
  const n = world.resources.toLocaleString('en-US');
  const targetIs = both.base ? "issue 33: at most the base build's (--base), run alternately" : 'issue 33: the previous release (run with --base DIR)';
  record({
    id: 'import-all-wall',
    what: `import --all of ${n} resources of every kind (10 project/regions), L = ${LATENCY_MS} ms`,
    unit: 'ms',
    value: median(walls),
    samples: walls,
    ideal,
    idealIs: `node -e 0 + ${world.listPages} list pages × L`,
    target: baseWall ?? Number.POSITIVE_INFINITY,
    targetIs,
    note: `CPU ${median(both.runs.map((r) => r.usage!.cpuMs)).toFixed(0)} ms; ${median(requests.runs)} requests${both.base ? ` (base: ${median(requests.base)})` : ''}`,
  });
  record({
    id: 'import-all-rss',
    what: `import --all of ${n} resources, peak RSS`,
    unit: 'MB',
    value: median(rss),
    samples: rss,
    ideal: await nodeRss(),
    idealIs: 'node -e 0',
    target: baseRss ?? Number.POSITIVE_INFINITY,
    targetIs,
  });
  recordCpu('import-all', `import --all of ${n} resources`, both);
}

/**
 * apply of independent changes that wait on no task (FastEdge app deletes), no latency: the share
 * of the process's time spent in the executor's scheduling, from a CPU profile of the run (1 ms
 * samples; garbage collection is not attributed to anyone). No latency leaves nothing but
 * edgeform's own work and the emulator's, which is where scheduling shows most. The ideal is
 * none at all; the note gives the apply's wall and requests beside it.
 */
async function applyScheduling(world: World): Promise<void> {
  const emulator = await startEmulator({ fixtures: world.fixtures, latencyMs: 0 });
  emulators.push(emulator);
  const shares: number[] = [];
  const scheduling: number[] = [];
  const walls: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    await emulator.reset();
    const profiles = join(dir, `profile-${i}`);
    mkdirSync(profiles);
    const run = await runNode(['--cpu-prof', '--cpu-prof-dir', profiles, CLI, 'apply', world.stack, '--auto-approve', '--format', 'json'], { env: emulator.env });
    if (run.code !== 0) throw new Error(`apply exited ${run.code}\n${run.stderr.slice(-2000)}`);
    if (!run.stdout.includes(`"destroy":${world.resources}`)) throw new Error(`apply did not report ${world.resources} deletes`);
    const time = timeInside(readCpuProfile(profiles), SCHEDULING_STEPS, SCHEDULING_ENDS);
    shares.push(time.ms / time.totalMs);
    scheduling.push(time.ms);
    walls.push(time.totalMs);
  }
  const requests = (await emulator.requests()).length;
  const n = world.resources.toLocaleString('en-US');
  record({
    id: 'schedule-share',
    what: `apply ${n} independent no-wait changes (FastEdge app deletes), no latency: share of its time spent scheduling`,
    unit: '%',
    value: 100 * median(shares),
    samples: shares.map((s) => 100 * s),
    ideal: 0,
    idealIs: 'no scheduling at all',
    target: 100 * SCHEDULING_SHARE_TARGET,
    targetIs: 'issue 20',
    note: `scheduling ${median(scheduling).toFixed(0)} ms of ${median(walls).toFixed(0)} ms profiled (CPU profile, GC not attributed); the last run sent ${requests} requests (${(requests / world.resources).toFixed(2)} per change)`,
  });
}

const machine = {
  cpus: cpus().length,
  model: cpus()[0]?.model ?? 'unknown',
  memoryGB: Math.round(totalmem() / 1e9),
  node: process.version,
  platform: `${process.platform} ${process.arch}`,
  loadavgAtStart: loadavg(),
};
process.stdout.write(
  `edgeform benchmark: ${machine.cpus} × ${machine.model}, ${machine.node}, load ${machine.loadavgAtStart.map((l) => l.toFixed(1)).join(' ')}; medians of ${RUNS} runs\n`,
);
if (machine.loadavgAtStart[0]! > machine.cpus) {
  process.stdout.write(`Warning: the machine is busy (load ${machine.loadavgAtStart[0]!.toFixed(1)} on ${machine.cpus} cores); wall times come out inflated, CPU times less so.\n`);
}
process.stdout.write('\n');

let failure: unknown;
try {
  const nodeMs = await startUp(tinyWorld(dir));
  process.stdout.write(`node -e 0: ${nodeMs.toFixed(0)} ms\n`);
  if (wanted('reads-single')) await planReads('reads-single', '1,000 floating IPs (one project/region)', floatingIpWorld(dir, 1_000), nodeMs, { value: 0.01, is: 'issue 10' });
  if (wanted('reads-mixed')) await planReads('reads-mixed', '1,000 resources of every kind (10 project/regions)', mixedWorld(dir, 1_000), nodeMs);
  if (wanted('reads-identity')) {
    await planReads('reads-identity', `re-plan of ${IDENTITY_LABEL}, converged`, identityWorld(dir, IDENTITY_FIPS, IDENTITY_APPS, true), nodeMs, { value: 0.01, is: 'issue 20' });
  }
  if (wanted('reads-lb')) await planReads('reads-lb', '300 load balancers with 2 listeners and a pool each, no change (1,200 resources)', balancerWorld(dir, 300), nodeMs);
  if (wanted('compute-plan') || wanted('compute-validate')) await compute(floatingIpWorld(dir, 10_000), floatingIpWorld(dir, 20_000), nodeMs);
  if (wanted('compute-dns')) await computeDns(dnsWorld(dir, 10_000, 1, true), nodeMs);
  if (wanted('apply-noticed') || wanted('apply-wall')) await applyResizes(resizeWorld(dir, 200));
  if (wanted('apply-identity'))
    await applyCreates(identityCreates(identityWorld(dir, IDENTITY_FIPS, IDENTITY_APPS, false), IDENTITY_FIPS, IDENTITY_LABEL, 'apply-identity-creates'), nodeMs);
  if (wanted('apply-fip'))
    await applyCreates(identityCreates(identityWorld(dir, 1_000, 0, false), 1_000, '1,000 floating IPs found by ownership tags', 'apply-fip-creates'), nodeMs);
  if (wanted('apply-dns-creates')) {
    await applyCreates(dnsCreates(dnsWorld(dir, 1_000, 1, false), 'apply-dns-creates', '1,000 DNS record sets in one zone'), nodeMs);
    await applyCreates(dnsCreates(dnsWorld(dir, 1_000, 50, false), 'apply-dns-creates-50', '1,000 DNS record sets over 50 zones'), nodeMs);
  }
  if (wanted('import')) await importAll(mixedWorld(dir, 10_000), nodeMs);
  if (wanted('schedule')) await applyScheduling(deleteAppsWorld(dir, 10_000));
  if (wanted('zonefile')) await zoneFile(nodeMs);
  if (wanted('fleet-drift')) await fleetDrift(fleetWorld(dir, 300, 10, false), fleetWorld(dir, 300, 10, true));
} catch (error) {
  failure = error;
} finally {
  await Promise.all(emulators.map((e) => e.stop()));
  rmSync(dir, { recursive: true, force: true });
}

if (failure !== undefined) {
  process.stderr.write(`\nThe benchmark could not run: ${failure instanceof Error ? failure.message : String(failure)}\n`);
  process.exitCode = 1;
} else {
  const missed = rows.filter((r) => !r.met);
  const results = { date: new Date().toISOString(), machine: { ...machine, loadavgAtEnd: loadavg() }, runs: RUNS, latencyMs: LATENCY_MS, rows };
  const file = fileURLToPath(new URL('../../bench/results.json', import.meta.url));
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(
    `\n${missed.length === 0 ? 'Every target met.' : `${missed.length} of ${rows.length} targets missed: ${missed.map((r) => r.id).join(', ')}.`} Results in bench/results.json.\n`,
  );
  process.exitCode = missed.length === 0 ? 0 : 1;
}
