import { API_KEY_ENV } from '../env.js';
import { NUMERIC_OPTION_NAMES, emulatorFlag, flagProblem, isValidApiKey, startEmulator, type Emulator, type EmulatorOptions } from '../emulator/index.js';
import { UsageError } from '../errors.js';
import { defineCommand } from './command.js';
import { ExitCode, type CliIO } from './io.js';

interface EmulatorArgs {
  host: string;
  port: number;
  fixtures?: string;
  latency: number;
  jitter: number;
  failRate: number;
  rateLimitRate: number;
  dropBeforeRate: number;
  dropAfterRate: number;
  taskFailRate: number;
  seed?: number;
  taskDuration: number;
  readLag: number;
  apiKey?: string;
  control: boolean;
  log: boolean;
}

/** Quotes a value for a POSIX shell: single quotes, so the `$` in API keys is not expanded. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

const camelCase = (flag: string): string => flag.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());

function checkArgs(args: EmulatorArgs): EmulatorOptions {
  if (args.apiKey !== undefined && !isValidApiKey(args.apiKey)) throw new UsageError('--api-key must be non-empty and contain no whitespace');
  const options: EmulatorOptions = { host: args.host, control: args.control };
  for (const name of NUMERIC_OPTION_NAMES) {
    // yargs hands each flag over camel-cased as well: --fail-rate as failRate.
    const value = (args as unknown as Record<string, number | undefined>)[camelCase(emulatorFlag(name))];
    if (value === undefined) continue;
    const problem = flagProblem(name, value);
    if (problem !== undefined) throw new UsageError(problem);
    options[name] = value;
  }
  if (args.fixtures !== undefined) options.fixtures = args.fixtures;
  if (args.apiKey !== undefined) options.apiKey = args.apiKey;
  return options;
}

function listenForSignals(): { received: Promise<NodeJS.Signals>; stop: () => void } {
  let onSignal: (signal: NodeJS.Signals) => void = () => {};
  const stop = (): void => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  const received = new Promise<NodeJS.Signals>((resolve) => {
    onSignal = (signal) => {
      stop();
      resolve(signal);
    };
  });
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return { received, stop };
}

function printBanner(io: CliIO, emulator: Emulator, control: boolean): void {
  const { url, apiKey } = emulator;
  io.out(`edgeform emulator listening on ${url}${control ? ' (control routes on: /__emulator/)' : ''}`);
  const f = emulator.faults.current;
  if (f.failRate + f.rateLimitRate + f.dropBeforeRate + f.dropAfterRate + f.taskFailRate + f.jitterMs > 0) {
    io.out(`Injecting faults with seed ${emulator.faults.seed} (--seed ${emulator.faults.seed} repeats them).`);
  }
  io.out('Point edgeform at it with:');
  io.out(`export EDGEFORM_BASE_URL=${url}`);
  // The output never shows the key EDGEFORM_API_KEY holds; when the emulator was given that
  // same key there is nothing to export.
  if (apiKey === io.env[API_KEY_ENV]) io.out(`(${API_KEY_ENV} in this environment already holds the key the emulator accepts.)`);
  else io.out(`export ${API_KEY_ENV}=${shellQuote(apiKey)}`);
  io.out('Press Ctrl-C to stop.');
}

/** `edgeform emulator`: serve the local platform emulator until SIGINT/SIGTERM, then exit 0. */
export const emulatorCommand = defineCommand<EmulatorArgs>({
  builder: (y) =>
    y
      .option('host', { type: 'string', default: '127.0.0.1', describe: 'Interface to listen on' })
      .option('port', { type: 'number', default: 8787, describe: 'Port to listen on (0 picks a free port)' })
      .option('fixtures', { type: 'string', describe: 'YAML file seeding the platform (see docs/emulator.md)' })
      .option('latency', { type: 'number', default: 0, describe: 'Delay every answer by MS milliseconds' })
      .option('jitter', { type: 'number', default: 0, describe: 'Add up to MS more milliseconds at random' })
      .option('fail-rate', { type: 'number', default: 0, describe: 'Share (0..1) of requests answered 503' })
      .option('rate-limit-rate', { type: 'number', default: 0, describe: 'Share (0..1) of requests answered 429 with Retry-After: 1' })
      .option('drop-before-rate', { type: 'number', default: 0, describe: 'Share (0..1) of requests whose connection is dropped before anything is done' })
      .option('drop-after-rate', { type: 'number', default: 0, describe: 'Share (0..1) of requests whose connection is dropped after the change was made' })
      .option('task-fail-rate', { type: 'number', default: 0, describe: 'Share (0..1) of cloud tasks that end in ERROR' })
      .option('seed', { type: 'number', describe: 'Seed of the faults: the same seed repeats the same faults (default: random, shown in the banner)' })
      .option('task-duration', { type: 'number', default: 2000, describe: 'How long a cloud task takes, in milliseconds' })
      .option('read-lag', { type: 'number', default: 0, describe: 'After a resize, GET instance shows the old flavor this long (ms)' })
      .option('api-key', { type: 'string', describe: 'API key to accept (default: a generated key containing $)' })
      .option('control', { type: 'boolean', default: false, describe: 'Serve the test-only /__emulator/ control routes' })
      .option('log', { type: 'boolean', default: false, describe: 'Print one line per request to stderr' }),
  async run(args, io) {
    const options = checkArgs(args);
    if (args.log) options.log = (line) => io.err(line);
    const signals = listenForSignals();
    let emulator;
    try {
      emulator = await startEmulator(options);
    } catch (error) {
      signals.stop();
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE') throw new UsageError(`port ${args.port} on ${args.host} is already in use; pick another with --port (0 picks a free one)`);
      if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new UsageError(`cannot listen on host ${args.host}`);
      throw error;
    }
    printBanner(io, emulator, args.control);
    const received = await signals.received;
    io.err(`Received ${received}; stopping the emulator.`);
    await emulator.close();
    return ExitCode.ok;
  },
});
