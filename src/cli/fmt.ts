import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { formatStackText } from '../config/format-stack.js';
import { isStackFileName } from '../config/stack-files.js';
import { unifiedFileDiff } from '../render/text-diff.js';
import { defineCommand } from './command.js';
import { ExitCode } from './io.js';

interface FmtArgs {
  paths: string[];
  check: boolean;
  diff: boolean;
  recursive: boolean;
}

/**
 * `edgeform fmt [--check] [--diff] [--recursive] [PATH...]`: puts stack files in canonical order
 * (formatStackText), each file changed named on stdout. `--check` writes nothing, names the
 * files that would change and exits 3 when there are any (as `terraform fmt -check` does), so
 * CI can require formatted stacks; `--diff` writes nothing either and prints, instead of the
 * names, a unified diff of each such file, with the same exit code. A path is a file or a
 * directory (its *.yaml and *.yml files, as the stack reader takes a directory stack; `.` when
 * none is given); `--recursive` takes those of every subdirectory too, except node_modules and
 * directories whose name starts with a dot (.git, .github: workflows are not stacks). A file
 * that is not YAML, or a path that cannot be read, is reported on stderr and makes the exit code
 * 1; the other files are still formatted.
 */
export const fmtCommand = defineCommand<FmtArgs>({
  builder: (y) =>
    y
      .positional('paths', { type: 'string', array: true, default: ['.'], describe: 'Stack files or directories of *.yaml files (default: the current directory)' })
      .option('check', { type: 'boolean', default: false, describe: 'Write nothing; list the files that would change and exit 3 when there are any' })
      .option('diff', { type: 'boolean', default: false, describe: 'Write nothing; print a unified diff of each file that would change and exit 3 when there are any' })
      .option('recursive', { type: 'boolean', default: false, describe: 'Also format the stack files in subdirectories (not node_modules or .dot directories)' }),
  async run(args, io) {
    let failed = false;
    let unformatted = 0;
    for (const path of args.paths) {
      const files = await stackFilesAt(path, args.recursive).catch((error: NodeJS.ErrnoException) => {
        io.err(`Error: ${path}: ${error.code === 'ENOENT' ? 'no such file or directory' : error.message}`);
        failed = true;
        return [] as string[];
      });
      for (const file of files) {
        const before = await readFile(file, 'utf8');
        const result = formatStackText(before);
        if (!result.ok) {
          io.err(`${file}:${result.error.line}:${result.error.column}: error: not a YAML file edgeform can format: ${result.error.message}`);
          failed = true;
          continue;
        }
        if (!result.changed) continue;
        unformatted++;
        if (args.diff) {
          io.out(unifiedFileDiff(file, before, result.text));
          continue;
        }
        if (!args.check) await writeFile(file, result.text);
        io.out(file);
      }
    }
    if (failed) return ExitCode.error;
    return (args.check || args.diff) && unformatted > 0 ? ExitCode.unformatted : ExitCode.ok;
  },
});

/**
 * A file as given, or the stack files (isStackFileName) directly inside a directory, and with
 * `recursive` inside its subdirectories too (not node_modules, not dot-directories), in sorted
 * order of their paths.
 */
async function stackFilesAt(path: string, recursive: boolean): Promise<string[]> {
  if (!(await stat(path)).isDirectory()) return [path];
  const files: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const at = join(dir, entry.name);
      if (entry.isFile() && isStackFileName(entry.name)) files.push(at);
      else if (recursive && entry.isDirectory() && entry.name !== 'node_modules' && !entry.name.startsWith('.')) await walk(at);
    }
  };
  await walk(path);
  return files.sort();
}
