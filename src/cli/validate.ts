import { loadStack } from '../config/load-stack.js';
import { boundHeapGrowth } from './heap-growth.js';
import { createValidateView, VALIDATE_FORMATS, type ValidateFormat } from '../render/validate-view.js';
import { defineCommand } from './command.js';
import { ExitCode } from './io.js';

/** The output format without --format. */
const DEFAULT_FORMAT: ValidateFormat = 'text';

interface ValidateArgs {
  path: string;
  format: ValidateFormat;
}

/**
 * `edgeform validate PATH`: parse and check a stack without touching the network. Exit 0
 * when valid (warnings allowed), 1 when not. Text diagnostics go to stderr and the success
 * line to stdout; `--format json` writes one JSON document to stdout.
 */
export const validateCommand = defineCommand<ValidateArgs>({
  builder: (y) =>
    y
      .positional('path', { type: 'string', describe: 'Stack file or directory of *.yaml files', demandOption: true })
      .option('format', { choices: VALIDATE_FORMATS, default: DEFAULT_FORMAT, describe: 'Output format' }),
  plain: (path) => ({ path, format: DEFAULT_FORMAT }),
  async run(args, io) {
    const view = createValidateView(args.format, io);
    const { stack, diagnostics, files } = await loadStack(args.path, io.env, { onInputRead: boundHeapGrowth });
    view.result(stack ? { resources: stack.resources.length, checks: stack.checks.length } : null, diagnostics, files);
    return stack ? ExitCode.ok : ExitCode.error;
  },
});
