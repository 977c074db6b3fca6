import { PassThrough } from 'node:stream';
import { runCli } from '../../cmd/run-cli.js';
import { captureStream } from './capture.js';
import { cliEnv, type CliResult, type RunCliOptions } from './cli.js';

/** The working directory of the test process, restored after every run with a `cwd`. */
const HOME = process.cwd();
/** Whether a run with a `cwd` is in progress (the working directory belongs to the whole process). */
let chdirInUse = false;

/**
 * Runs `edgeform ARGS` in this process, through the same runCli the executable runs, and
 * collects its output: the in-process twin of the spawning runCli of cli.ts, with the same
 * options and result, for tests that hold the CLI's behaviour (output, exit code, requests
 * sent) rather than the process around it. It costs milliseconds where a spawn costs half a
 * second of start-up.
 *
 * The environment is built as for a spawned CLI (the runner's minus every EDGEFORM_ variable,
 * NO_COLOR set, then the overrides) and reaches the CLI only through io.env. stdin is a pipe
 * that holds `input` and ends, not a terminal, as for a spawned CLI. `signal` is always null:
 * tests of signals and of the entry point stay with the spawned CLI.
 *
 * `cwd` is the one thing a process has that io cannot inject: the CLI resolves relative paths
 * and finds a saved plan's stack against the working directory. A run with `cwd` therefore
 * changes the test process's working directory for its duration (each vitest worker is a process
 * of its own that runs one test at a time: the forks pool of vitest.config.ts) and always returns
 * to the directory the test process started in; two such runs at once are refused rather than
 * left to race.
 */
export async function runCliInProcess(args: string[], options: RunCliOptions = {}): Promise<CliResult> {
  const stdout = captureStream();
  const stderr = captureStream();
  const stdin = new PassThrough();
  stdin.end(options.input ?? '');
  const run = () => runCli(args, { env: cliEnv(options.env), stdout, stderr, stdin });
  let code: number;
  if (options.cwd === undefined) {
    code = await run();
  } else {
    if (chdirInUse) throw new Error('runCliInProcess: another run with a cwd is in progress; the working directory is one per process');
    chdirInUse = true;
    try {
      process.chdir(options.cwd);
      code = await run();
    } finally {
      process.chdir(HOME);
      chdirInUse = false;
    }
  }
  return { code, signal: null, stdout: stdout.text(), stderr: stderr.text() };
}
