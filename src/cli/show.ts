import { readFile } from 'node:fs/promises';
import { payloadSchemas } from '../kinds/provider.js';
import { providers } from '../kinds/providers.js';
import { parsePlanFile } from '../plan/saved-plan.js';
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
 */
export const showCommand = defineCommand<ShowArgs>({
  builder: (y) =>
    y
      .positional('planfile', { type: 'string', describe: 'A plan file written by plan --out (or plan --format json)', demandOption: true })
      .option('format', { choices: PLAN_FORMATS, default: 'text' as const, describe: 'Output format' }),
  async run(args, io) {
    const text = await readFile(args.planfile, 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw new PlanFileError(`cannot read the plan file ${args.planfile}: ${error.code === 'ENOENT' ? 'no such file' : error.message}`);
    });
    const saved = parsePlanFile(text, args.planfile, payloadSchemas(providers.resources), { allowErrored: true });
    const sources = saved.stack.sources;
    // The sticky-comment marker names the stack as `plan --format markdown PATH` would for a one-file stack.
    const view = createPlanView(args.format, io, { stackLabel: sources.length === 1 ? sources[0]! : args.planfile, commit: commitFromEnv(io.env) });
    // The views read only what a saved plan has too (a SavedChange differs in `desired`, which they never show).
    view.plan(saved as unknown as Plan, new Map());
    return ExitCode.ok;
  },
});
