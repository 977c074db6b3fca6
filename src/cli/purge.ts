import { resolveBaseUrl } from '../api/base-url.js';
import { UsageError, must } from '../errors.js';
import {
  describeDuration,
  describeTarget,
  findResourceByCname,
  purgeHistory,
  purgeRequests,
  readPurgedResource,
  resourceTarget,
  sendPurge,
  waitForPurges,
  type PurgedResource,
} from '../kinds/cdn-purge.js';
import { patternProblem, ruleScopeProblems, ruleTarget, urlProblem, type PurgeSpec, type PurgeTarget } from '../kinds/cdn-purge-schema.js';
import type { ProviderContext } from '../kinds/provider.js';
import type { ResourceChange } from '../plan/types.js';
import { createPurgeView, PURGE_FORMATS, type PurgeFormat, type PurgeIntent, type PurgeView } from '../render/purge-view.js';
import { askApproval } from './approval.js';
import { defineCommand } from './command.js';
import { describeRunFailure, withInterrupts } from './interrupt.js';
import { ExitCode, type CliIO } from './io.js';
import { checkParallelism, connect, planStack, POLL_INTERVAL_ENV } from './plan-stack.js';
import { createRunReporter } from './run-reporter.js';

interface PurgeArgs {
  path?: string;
  target?: string;
  cname?: string;
  paths?: string[];
  urls?: string[];
  all: boolean;
  autoApprove: boolean;
  wait: boolean;
  format: PurgeFormat;
  parallelism: number;
}

/** How often --wait looks at the purge history by default (EDGEFORM_TASK_POLL_INTERVAL overrides it). */
const WAIT_INTERVAL_MS = 5000;
/** How many looks --wait takes at most (about 30 minutes at the default interval). */
const WAIT_MAX_POLLS = 360;

/**
 * `edgeform purge`: purges a CDN resource's cache now, through the stack (`STACK --target
 * cdn_resource.site`, or a rule, whose pattern scopes it) or by `--cname` without one. What to
 * purge comes from --paths, --urls or --all, else from the block's declared `purge:`. It shows
 * what it will purge and asks, sends the purge within the platform's limits (split, spaced,
 * 429 waited out), and with --wait follows the purge history until it is done or failed. It
 * records nothing: a declared `purge.when` is apply's to purge for.
 */
export const purgeCommand = defineCommand<PurgeArgs>({
  builder: (y) =>
    y
      .positional('path', { type: 'string', describe: 'Stack file or directory (with --target)' })
      .option('target', { type: 'string', requiresArg: true, describe: 'The cdn_resource or cdn_rule block to purge (TYPE.NAME)' })
      .option('cname', { type: 'string', requiresArg: true, describe: 'Purge the CDN resource with this cname, without a stack' })
      .option('paths', { type: 'string', array: true, requiresArg: true, describe: 'Patterns to purge (/assets/*; * only at the end)' })
      .option('urls', { type: 'string', array: true, requiresArg: true, describe: 'Exact URLs to purge (/index.html; no domain)' })
      .option('all', { type: 'boolean', default: false, describe: 'Purge the whole cache (of a rule: its pattern)' })
      .option('auto-approve', { type: 'boolean', default: false, describe: 'Do not ask for confirmation (for pipelines)' })
      .option('wait', { type: 'boolean', default: false, describe: 'Follow the purge history until the purge is done (exit 0) or failed (exit 1)' })
      .option('format', { choices: PURGE_FORMATS, default: 'text' as const, describe: 'Output: text, or one JSON document on stdout' })
      .option('parallelism', { type: 'number', default: 10, describe: 'Requests to the platform at the same time (reading the stack)' }),
  async run(args, io) {
    checkParallelism(args.parallelism);
    const flagged = checkFlags(args);
    const view = createPurgeView(args.format, io);
    let intent: PurgeIntent | null = null;
    return withInterrupts(io, async (signal) => {
      try {
        const found = args.cname !== undefined ? await byCname(args.cname, must(flagged, 'flagged'), io, signal, args.parallelism) : await byStack(args, flagged, io, view, signal);
        if (typeof found === 'number') return found;
        const { ctx, close } = found;
        try {
          intent = found.intent;
          view.intent(intent);
          if (!args.autoApprove) {
            if (!io.stdin.isTTY) {
              view.approvalUnavailable();
              return ExitCode.error;
            }
            const answer = await askApproval(io, view.promptStream === 'stderr' ? io.stderr : io.stdout, signal, 'edgeform will purge what is described above.');
            if (answer !== 'approved') {
              view.cancelled();
              return answer === 'interrupted' ? ExitCode.interrupted : ExitCode.error;
            }
          }
          return await purge(ctx, found.target, intent, args, io, view);
        } finally {
          await close();
        }
      } catch (error) {
        view.failed(describeRunFailure(error, signal.aborted), intent);
        throw error;
      }
    });
  },
});

/** The purge the flags ask for (undefined: the block's declared one), after the offline checks; refuses flags that do not fit together. */
function checkFlags(args: PurgeArgs): PurgeTarget | undefined {
  if (args.cname !== undefined && (args.path !== undefined || args.target !== undefined))
    throw new UsageError('--cname purges without a stack: give either --cname or STACK --target ADDRESS');
  if (args.cname === undefined && (args.path === undefined || args.target === undefined))
    throw new UsageError('purge needs STACK --target ADDRESS (a cdn_resource or cdn_rule block), or --cname CNAME');
  const given = [args.paths !== undefined && '--paths', args.urls !== undefined && '--urls', args.all && '--all'].filter((f): f is string => f !== false);
  if (given.length > 1) throw new UsageError(`give one of --paths, --urls and --all, not ${given.join(' and ')}`);
  if (given.length === 0) {
    if (args.cname !== undefined) throw new UsageError('--cname needs what to purge: --paths, --urls or --all');
    return undefined;
  }
  const items = args.paths ?? args.urls;
  if (items !== undefined) {
    const flag = args.paths ? '--paths' : '--urls';
    const problems = items.flatMap((item, i) => {
      const problem = args.paths ? patternProblem(item) : urlProblem(item);
      return problem === null ? [] : [`${flag} ${JSON.stringify(item)} (value ${i + 1}): ${problem}`];
    });
    if (problems.length > 0) throw new UsageError(problems.join('\n'));
  }
  return args.paths ? { type: 'paths', items: args.paths } : args.urls ? { type: 'urls', items: args.urls } : { type: 'all' };
}

/** What `purge` runs with once it knows the resource. */
interface Found {
  ctx: ProviderContext;
  close: () => Promise<void>;
  target: PurgeTarget;
  intent: PurgeIntent;
}

function intentOf(address: string | null, resource: PurgedResource, target: PurgeTarget): PurgeIntent {
  return {
    address,
    resource: { id: resource.id, cname: resource.cname },
    type: target.type,
    items: target.type === 'all' ? [] : target.items,
    summary: describeTarget(target, 10),
    duration: describeDuration(target),
    requests: purgeRequests(target).length,
  };
}

/** `--cname`: the resource with that cname, found through the resource list. */
async function byCname(cname: string, target: PurgeTarget, io: CliIO, signal: AbortSignal, parallelism: number): Promise<Found> {
  const { api, ctx } = connect(resolveBaseUrl({ env: io.env }), { env: io.env, signal, parallelism, reporter: createRunReporter(io) });
  try {
    const resource = await findResourceByCname(ctx, cname);
    if (resource === null) throw new UsageError(`no CDN resource has the cname ${JSON.stringify(cname)}`);
    return { ctx, close: () => api.close(), target, intent: intentOf(null, resource, target) };
  } catch (error) {
    await api.close();
    throw error;
  }
}

/**
 * STACK --target: the stack is planned for that block (and what it depends on), which finds
 * its resource as plan does; what to purge is the flags', else the block's declared `purge:`,
 * a rule's scoped by its pattern.
 */
async function byStack(args: PurgeArgs, flagged: PurgeTarget | undefined, io: CliIO, view: PurgeView, signal: AbortSignal): Promise<Found | number> {
  const address = must(args.target, 'args.target');
  if (!/^cdn_(resource|rule)\.[^.]+$/.test(address)) throw new UsageError(`--target ${address}: purge takes a cdn_resource or cdn_rule block (TYPE.NAME)`);
  const result = await planStack({
    path: must(args.path, 'args.path'),
    env: io.env,
    parallelism: args.parallelism,
    targets: [address],
    signal,
    reporter: createRunReporter(io),
    protect: (values) => io.protect(values),
  });
  if (result.kind === 'invalid') {
    view.invalidStack(result.diagnostics, result.files);
    return ExitCode.error;
  }
  const close = () => result.api.close();
  try {
    const change = result.plan.resource_changes.find((c) => c.address === address);
    if (change === undefined) {
      view.planFailed(result.plan, result.files);
      await close();
      return ExitCode.error;
    }
    const target = targetOf(change, flagged);
    const resourceId = change.type === 'cdn_resource' ? change.before?.resource_id : change.before === null ? undefined : (change.desired as { resource_id?: unknown }).resource_id;
    if (typeof resourceId !== 'number' || change.action === 'create' || change.action === 'delete')
      throw new UsageError(`${address} ${change.action === 'delete' ? 'is to be deleted' : 'does not exist yet'}: there is nothing to purge (apply the stack first)`);
    const resource = await readPurgedResource(result.ctx, resourceId);
    return { ctx: result.ctx, close, target, intent: intentOf(address, resource, target) };
  } catch (error) {
    await close();
    throw error;
  }
}

/** What to purge for a block: the flags' (a rule's checked against its pattern), else its declared `purge:`. */
function targetOf(change: ResourceChange, flagged: PurgeTarget | undefined): PurgeTarget {
  const declared = (change.desired as { purge?: PurgeSpec }).purge;
  if (flagged === undefined && declared === undefined) throw new UsageError(`${change.address} declares no purge: give --paths, --urls or --all`);
  const spec: PurgeSpec =
    flagged === undefined ? must(declared, 'declared') : flagged.type === 'all' ? { all: true } : flagged.type === 'urls' ? { urls: flagged.items } : { paths: flagged.items };
  if (change.type !== 'cdn_rule') return resourceTarget(spec);
  const rule = (change.desired.rule ?? change.before?.rule) as string | undefined;
  const ruleType = (change.desired.rule_type ?? change.before?.rule_type) as 0 | 1 | undefined;
  if (rule === undefined) throw new UsageError(`${change.address}: its pattern is not known, so its purge cannot be scoped`);
  const problems = ruleScopeProblems(spec, rule, ruleType);
  if (problems.length > 0) {
    const items = spec.urls ?? spec.paths ?? [];
    throw new UsageError(problems.map((p) => `${change.address}: ${JSON.stringify(items[p.index])} ${p.message}`).join('\n'));
  }
  return ruleTarget(spec, rule, ruleType);
}

/** Sends the purge and, with --wait, follows the purge history: exit 0 sent or done, 1 failed. */
async function purge(ctx: ProviderContext, target: PurgeTarget, intent: PurgeIntent, args: PurgeArgs, io: CliIO, view: PurgeView): Promise<number> {
  const progressing: ProviderContext = { ...ctx, progress: (message) => view.progress(message) };
  const seen = args.wait ? new Set((await purgeHistory(ctx, intent.resource.cname, target.type)).map((s) => s.purge_id)) : new Set<number>();
  const sent = await sendPurge(progressing, intent.resource.id, target);
  if (!args.wait) {
    view.finished(intent, { status: 'sent', purges: [] });
    return ExitCode.ok;
  }
  const raw = io.env[POLL_INTERVAL_ENV];
  const intervalMs = raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : WAIT_INTERVAL_MS;
  const waited = await waitForPurges(progressing, { cname: intent.resource.cname, type: target.type, seen, count: sent.length, intervalMs, maxPolls: WAIT_MAX_POLLS });
  view.finished(intent, { status: waited.done ? 'successful' : 'failed', purges: waited.statuses });
  return waited.done ? ExitCode.ok : ExitCode.error;
}
