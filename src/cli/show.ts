import { readFile } from 'node:fs/promises';
import { payloadSchemas } from '../kinds/provider.js';
import { providers } from '../kinds/providers.js';
import { isPlanFileCandidate, parsePlanFile } from '../plan/saved-plan.js';
import type { Plan } from '../plan/types.js';
import { PlanFileError } from '../errors.js';
import { createPlanView, PLAN_FORMATS, type PlanFormat } from '../render/plan-view.js';
import { defineCommand } from './command.js';
import { commitFromEnv, ExitCode } from './io.js';

interface ShowArgs {
  planfile: string;
  format: PlanFormat;
}

/**
 * `edgeform show PLANFILE`: a saved plan (from `plan --out`, or the output of `plan --format
 * json`: one document) rendered as `plan` renders it, in text, JSON or Markdown. The file is
 * read with apply's strict reader (a corrupt or edited file is refused the same way), except
 * that a plan with errors is shown; nothing is sent to the platform and no API key is needed.
 * A stack (what apply would read as one: a *.yaml file, text that is not JSON, a directory) is
 * refused as a stack, pointing to `plan`.
 */
export const showCommand = defineCommand<ShowArgs>({
  builder: (y) =>
    y
      .positional('planfile', { type: 'string', describe: 'A plan file written by plan --out (or plan --format json)', demandOption: true })
      .option('format', { choices: PLAN_FORMATS, default: 'text' as const, describe: 'Output format' }),
  async run(args, io) {
    const bytes = await readFile(args.planfile).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'EISDIR') throw new PlanFileError(`${args.planfile} is a directory, not a plan file: ${stackHint(args.planfile)}`);
      throw new PlanFileError(`cannot read the plan file ${args.planfile}: ${error.code === 'ENOENT' ? 'no such file' : error.message}`);
    });
    // apply reads such a file as a stack: show says so rather than calling it a corrupt plan.
    if (!isPlanFileCandidate(args.planfile, bytes)) throw new PlanFileError(`${args.planfile} is a stack, not a plan file: ${stackHint(args.planfile)}`);
    const saved = parsePlanFile(bytes.toString('utf8'), args.planfile, payloadSchemas(providers.resources), { allowErrored: true });
    const sources = saved.stack.sources;
    // The sticky-comment marker names the stack as `plan --format markdown PATH` would for a one-file stack.
    const view = createPlanView(args.format, io, { stackLabel: sources.length === 1 ? (sources[0] ?? args.planfile) : args.planfile, commit: commitFromEnv(io.env) });
    // The views read only what a saved plan has too (a SavedChange differs in `desired`, which they never show).
    await view.plan(saved as unknown as Plan, new Map());
    return ExitCode.ok;
  },
});

/** Where to go with a stack given to show: plan shows what it would change, plan --out saves a plan to show. */
function stackHint(path: string): string {
  const quoted = /^[\w./-]+$/.test(path) ? path : JSON.stringify(path);
  return `\`edgeform plan ${quoted}\` shows what it would change, and \`edgeform plan ${quoted} --out plan.json\` saves a plan that \`edgeform show plan.json\` shows.`;
}
