import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { formatStackText } from '../config/format-stack.js';
import { defineCommand } from './command.js';
import { ExitCode } from './io.js';

interface FmtArgs {
  paths: string[];
  check: boolean;
}

/**
 * `edgeform fmt [--check] [PATH...]`: puts stack files in canonical order (formatStackText),
 * each file changed named on stdout. `--check` writes nothing, names the files that would
 * change and exits 3 when there are any (as `terraform fmt -check` does), so CI can require
 * formatted stacks. A path is a file or a directory (its *.yaml and *.yml files, as the stack
 * reader takes them; `.` when none is given). A file that is not YAML, or a path that cannot be
 * read, is reported on stderr and makes the exit code 1; the other files are still formatted.
 */
export const fmtCommand = defineCommand<FmtArgs>({
  builder: (y) =>
    y
      .positional('paths', { type: 'string', array: true, default: ['.'], describe: 'Stack files or directories of *.yaml files (default: the current directory)' })
      .option('check', { type: 'boolean', default: false, describe: 'Write nothing; list the files that would change and exit 3 when there are any' }),
  async run(args, io) {
    let failed = false;
    let unformatted = 0;
    for (const path of args.paths) {
      const files = await stackFilesAt(path).catch((error: NodeJS.ErrnoException) => {
        io.err(`Error: ${path}: ${error.code === 'ENOENT' ? 'no such file or directory' : error.message}`);
        failed = true;
        return [] as string[];
      });
      for (const file of files) {
        const result = formatStackText(await readFile(file, 'utf8'));
        if (!result.ok) {
          io.err(`${file}:${result.error.line}:${result.error.column}: error: not a YAML file edgeform can format: ${result.error.message}`);
          failed = true;
          continue;
        }
        if (!result.changed) continue;
        unformatted++;
        if (!args.check) await writeFile(file, result.text);
        io.out(file);
      }
    }
    if (failed) return ExitCode.error;
    return args.check && unformatted > 0 ? ExitCode.unformatted : ExitCode.ok;
  },
});

/** A file as given, or the *.yaml and *.yml files directly inside a directory, in sorted order. */
async function stackFilesAt(path: string): Promise<string[]> {
  if (!(await stat(path)).isDirectory()) return [path];
  const entries = await readdir(path, { withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && /\.ya?ml$/.test(e.name))
    .map((e) => join(path, e.name))
    .sort();
}
