import { stat } from 'node:fs/promises';
import { resolveBaseUrl } from '../api/base-url.js';
import { hasErrors } from '../config/diagnostics.js';
import { discoverStacks } from '../config/discover-stacks.js';
import { loadStack } from '../config/load-stack.js';
import { EdgeformError, UsageError, must } from '../errors.js';
import { readStackSpend } from '../kinds/stack-spend.js';
import type { StackSpend } from '../plan/cost.js';
import { COST_FORMATS, createCostView, type CostFormat, type SpendFailure } from '../render/cost-view.js';
import { formatDiagnosticsText } from '../render/diagnostics.js';
import { defineCommand } from './command.js';
import { withInterrupts } from './interrupt.js';
import { ExitCode, type CliIO } from './io.js';
import { connect } from './plan-stack.js';

interface CostArgs {
  path?: string;
  stacks?: string;
  since: string;
  until?: string;
  format: CostFormat;
}

const DAY_MS = 86_400_000;

/** The longest period the platform's cost report answers for. */
const MAX_DAYS = 31;

/** A date of --since or --until: `2026-01-31` or an ISO 8601 time. */
function parseDay(text: string, flag: string): Date {
  const at = /^\d{4}-\d{2}-\d{2}/.test(text) ? new Date(text) : new Date(Number.NaN);
  if (Number.isNaN(at.getTime())) throw new UsageError(`${flag} takes a date (2026-01-31) or, for --since, a number of days (30d), not "${text}"`);
  return at;
}

/** The period of `--since` (`30d` or a date) and `--until` (a date, default today), at most 31 days as the cost report allows. */
export function costPeriod(since: string, until: string | undefined, now: Date): { from: Date; to: Date } {
  const to = until === undefined ? now : parseDay(until, '--until');
  const days = /^(\d{1,3})d$/.exec(since);
  const from = days ? new Date(to.getTime() - Number(days[1]) * DAY_MS) : parseDay(since, '--since');
  if (from.getTime() > to.getTime()) throw new UsageError(`--since (${from.toISOString().slice(0, 10)}) is after --until (${to.toISOString().slice(0, 10)})`);
  if (to.getTime() - from.getTime() > MAX_DAYS * DAY_MS) throw new UsageError(`the platform's cost report covers at most ${MAX_DAYS} days; --since and --until span more`);
  return { from, to };
}

/**
 * `edgeform cost STACK [--since 30d] [--until DATE]` (or `--stacks ROOT`): what everything the
 * stack owns cost, from the platform's cost report filtered by its ownership tag; no state.
 */
export const costCommand = defineCommand<CostArgs>({
  builder: (y) =>
    y
      .positional('path', { type: 'string', describe: 'Stack file or directory (a named stack: its ownership tag is what is counted)' })
      .option('stacks', { type: 'string', requiresArg: true, describe: 'Report every stack under this directory (as edgeform stacks finds them) instead of one' })
      .option('since', { type: 'string', default: '30d', describe: 'Start of the period: a number of days before --until (30d) or a date (2026-01-01); at most 31 days' })
      .option('until', { type: 'string', requiresArg: true, describe: 'End of the period, that day included (a date; default today)' })
      .option('format', { choices: COST_FORMATS, default: 'text' as const, describe: 'Output format' }),
  async run(args, io) {
    if ((args.path === undefined) === (args.stacks === undefined)) throw new UsageError('edgeform cost takes a stack (PATH) or --stacks ROOT, one of the two');
    const period = costPeriod(args.since, args.until, new Date());
    const paths = args.stacks === undefined ? [must(args.path, 'args.path')] : await stackPaths(args.stacks);
    const view = createCostView(args.format, io);
    return withInterrupts(io, async (signal) => {
      const spends: StackSpend[] = [];
      const failures: SpendFailure[] = [];
      for (const path of paths) {
        const got = await spendOf(path, io, signal, period, args.stacks === undefined);
        if ('message' in got) failures.push(got);
        else spends.push(got);
      }
      view.report(spends, failures);
      return failures.length > 0 ? ExitCode.error : ExitCode.ok;
    });
  },
});

/** The stacks under a root, as `edgeform stacks` finds them. */
async function stackPaths(root: string): Promise<string[]> {
  const info = await stat(root).catch(() => undefined);
  if (!info?.isDirectory()) throw new UsageError(`--stacks searches a directory: ${root} ${info ? 'is not one' : 'does not exist'}`);
  return (await discoverStacks(root)).stacks.map((s) => s.path);
}

/** One stack's spend, or why it has none; an invalid single stack prints its diagnostics (nothing is sent). */
async function spendOf(path: string, io: CliIO, signal: AbortSignal, period: { from: Date; to: Date }, alone: boolean): Promise<StackSpend | SpendFailure> {
  const loaded = await loadStack(path, io.env);
  if (!loaded.stack || hasErrors(loaded.diagnostics)) {
    if (alone) io.err(formatDiagnosticsText(loaded.diagnostics, { files: loaded.files, color: io.color }));
    return { path, message: 'the stack is not valid (edgeform validate says why); nothing was sent' };
  }
  const name = loaded.stack.name;
  if (name === undefined || name === null) return { path, message: 'the stack has no name: its resources carry no ownership tag to count them by (add name: to the stack)' };
  const { api, ctx } = connect(resolveBaseUrl({ env: io.env, stackBaseUrl: loaded.stack.provider.base_url }), { env: io.env, signal, parallelism: 4 });
  try {
    return await readStackSpend(ctx, { name, path }, period);
  } catch (error) {
    if (signal.aborted || !(error instanceof EdgeformError) || (alone && error instanceof UsageError)) throw error;
    return { path, message: error.message };
  } finally {
    await api.close();
  }
}
