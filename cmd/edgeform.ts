#!/usr/bin/env node
/**
 * The edgeform executable. Its first act, before the command line and its dependencies are
 * loaded (which takes a noticeable moment), is to handle SIGINT and SIGTERM: a signal at any
 * point of the run then ends it with exit 130 and a line on stderr, never with the default
 * death by signal (exit 143 for SIGTERM) that a CI system reports as a crash. Commands that
 * handle interrupts themselves (plan, drift: cancel reads; apply: two stages) add their own
 * listeners, and while one is installed this handler leaves the signal to it. Only node:
 * built-ins are imported statically here; the rest is imported once the handlers are in place.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The exit code of an interrupted run (ExitCode.interrupted; not imported, to load nothing first). */
const INTERRUPTED = 130;

function onSignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 1) return;
  process.stderr.write(`\nInterrupted (${signal}); stopping. Nothing was changed.\n`);
  process.exit(INTERRUPTED);
}

function isMain(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMain()) {
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // `ps` and /proc show "edgeform plan stack.yaml" rather than node and a script path; also the
  // sign (for tests, through /proc/PID/comm) that the handlers are in place.
  process.title = ['edgeform', ...process.argv.slice(2)].join(' ');
  const argv = process.argv.slice(2);
  if (isVersionQuery(argv)) {
    // Answered here, without the command line's dependencies: `edgeform --version` costs about
    // what `node -e 0` does. runCli answers the same question the same way (yargs' --version).
    const { VERSION } = await import('../src/version.js');
    process.stdout.write(`${VERSION}\n`);
  } else {
    // This process is the run's own: a large input may bound its heap's growth (src/cli/heap-growth.ts;
    // in-process test runs never do). A mark, not an import: --help and completion load no command's modules.
    Object.assign(globalThis, { [Symbol.for('edgeform.executable')]: true });
    const { runCli } = await import('./run-cli.js');
    process.exitCode = await runCli(argv);
  }
}

/** True for exactly `edgeform --version` or `edgeform -v`. */
function isVersionQuery(argv: readonly string[]): boolean {
  return argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v');
}
