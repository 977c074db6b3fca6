import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { mergeResults, type ResultFile } from '../plan/fleet-report.js';
import { MARKDOWN_LIMIT } from '../render/plan-markdown.js';
import { createReportView, REPORT_FORMATS, type ReportFormat } from '../render/report-merge.js';
import { defineCommand } from './command.js';

interface ReportArgs {
  action: 'merge';
  files: string[];
  format: ReportFormat;
  name: string;
  limit: number;
}

/** The largest result file read: a plan of the largest stack is well below it. */
const MAX_RESULT_BYTES = 256 * 1024 * 1024;

/**
 * `edgeform report merge FILES...`: the per-stack results of matrix jobs (`plan` and `drift
 * --format json`, an invalid stack's diagnostics, a stopped run's document; a directory stands
 * for every `*.json` and `*.jsonl` file under it) merged into one report and one exit code: 1
 * when any stack errored (a result of `stacks --format json` among the files makes every stack
 * it lists without a result an error), else 2 when any differs, else 0. Offline.
 */
export const reportCommand = defineCommand<ReportArgs>({
  builder: (y) =>
    y
      .positional('action', { choices: ['merge'] as const, describe: 'merge: one report of many stacks', demandOption: true })
      .positional('files', {
        type: 'string',
        array: true,
        describe: 'Result files (plan, drift, validate or stacks --format json; one document per line too), or directories of *.json files',
      })
      .option('format', { choices: REPORT_FORMATS, default: 'markdown' as const, describe: 'markdown (an issue or comment body, within 65,536 characters) or json' })
      .option('name', {
        type: 'string',
        default: 'fleet',
        requiresArg: true,
        describe: 'The fleet the report is for: its marker (<!-- edgeform:report name=NAME -->) and heading',
      })
      .option('limit', {
        type: 'number',
        default: MARKDOWN_LIMIT,
        describe: 'Markdown: the most characters (a GitHub comment or issue body takes 65,536); beyond it, one line per stack and a note. 0: no limit (the full report)',
      }),
  async run(args, io) {
    if (!/^[A-Za-z0-9][A-Za-z0-9._/-]{0,99}$/.test(args.name)) throw new UsageError(`--name takes 1 to 100 letters, digits, ".", "_", "-" or "/", not "${args.name}"`);
    if (!Number.isInteger(args.limit) || args.limit < 0) throw new UsageError(`--limit takes a number of characters (0: no limit), not ${String(args.limit)}`);
    const paths = await expandPaths(args.files ?? []);
    if (paths.length === 0) throw new UsageError('report merge needs result files (or directories holding them); none were found');
    const files: ResultFile[] = [];
    for (const path of paths) files.push(await readResult(path));
    const report = mergeResults(files);
    createReportView(args.format, io, { name: args.name, limit: args.limit === 0 ? Infinity : Math.max(args.limit, 2000) }).report(report);
    return report.exitCode;
  },
});

/** The files named, a directory standing for every `*.json`/`*.jsonl` file under it (sorted); a path that does not exist stays, to be reported. */
async function expandPaths(given: readonly string[]): Promise<string[]> {
  const paths: string[] = [];
  for (const path of given) {
    const info = await stat(path).catch(() => undefined);
    if (info?.isDirectory()) paths.push(...(await jsonFilesUnder(path)));
    else paths.push(path);
  }
  return paths;
}

async function jsonFilesUnder(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await jsonFilesUnder(path)));
    else if (/\.jsonl?$/.test(entry.name)) found.push(path);
  }
  return found;
}

async function readResult(path: string): Promise<ResultFile> {
  try {
    const info = await stat(path);
    if (!info.isFile()) return { name: path, problem: `${path} is not a file` };
    if (info.size > MAX_RESULT_BYTES) return { name: path, problem: `${path} is too large to be a result (${info.size} bytes)` };
    return { name: path, text: await readFile(path, 'utf8') };
  } catch (error) {
    return { name: path, problem: `cannot read ${path}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}` };
  }
}
