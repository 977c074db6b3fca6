import { loadStack } from '../config/load-stack.js';
import { formatDiagnosticsJson, formatDiagnosticsText } from '../render/diagnostics.js';
import { defineCommand } from './command.js';
import { ExitCode } from './io.js';

interface ValidateArgs {
  path: string;
  format: 'text' | 'json';
}

/**
 * `edgeform validate PATH`: parse and check a stack without touching the network. Exit 0
 * when valid (warnings allowed), 1 when not. Text diagnostics go to stderr and the success
 * line to stdout; `--format json` writes one JSON document to stdout.
 */
export const validateCommand = defineCommand<ValidateArgs>({
  command: 'validate <path>',
  describe: 'Check a stack file or directory offline (no API calls)',
  builder: (y) =>
    y
      .positional('path', { type: 'string', describe: 'Stack file or directory of *.yaml files', demandOption: true })
      .option('format', { choices: ['text', 'json'] as const, default: 'text' as const, describe: 'Output format' }),
  async run(args, io) {
    const { stack, diagnostics, files } = await loadStack(args.path, io.env);
    if (args.format === 'json') {
      io.out(formatDiagnosticsJson(diagnostics));
      return stack ? ExitCode.ok : ExitCode.error;
    }
    if (diagnostics.length > 0) io.err(formatDiagnosticsText(diagnostics, { files, color: io.color }));
    if (!stack) return ExitCode.error;
    const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
    io.out(`Success! The stack is valid (${count(stack.resources.length, 'resource')}, ${count(stack.checks.length, 'check')}).`);
    return ExitCode.ok;
  },
});
