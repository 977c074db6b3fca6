import { once } from 'node:events';
import { createRedactor, secretsFromEnv } from '../api/redact.js';
import { escapeTerminalOutput } from '../render/values.js';

/** Where a command writes and what it knows about its terminal; built once by the entry point. */
export interface CliIO {
  readonly env: NodeJS.ProcessEnv;
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean };
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean };
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Whether ANSI colours are on (see decideColor); the views build their colourisers from it. */
  readonly color: boolean;
  /** The command line, without node and script (`apply prod.yaml --auto-approve`): what an apply records as its lock's holder. */
  readonly argv: readonly string[];
  out(text: string): void;
  /** As out, then waits until stdout has taken what it holds when the reader is behind (a pipe to a slow reader): for a document of any size. */
  outPaced(text: string): Promise<void>;
  err(text: string): void;
  /** The text as out and err would write it (key redacted, control characters escaped), without colour: for a log file. */
  sanitize(text: string): string;
  /**
   * Redacts these values too, from now on, like the API key: the values of a stack's sensitive
   * fields (an S3 origin's keys), known once the stack is loaded. Never printed anyway; this is
   * the last line of defence, should one reach an error message.
   */
  protect(values: readonly string[]): void;
}

/** Exit codes, the only ones edgeform uses (see README "Exit codes"). */
export const ExitCode = {
  ok: 0,
  error: 1,
  changes: 2,
  /** `fmt --check`: files are not in canonical order (Terraform's `fmt -check` code). */
  unformatted: 3,
  interrupted: 130,
} as const;

export interface CreateIOOptions {
  env?: NodeJS.ProcessEnv;
  stdout?: CliIO['stdout'];
  stderr?: CliIO['stderr'];
  stdin?: CliIO['stdin'];
  /** The command line (without node and script), for --no-color and CliIO.argv. */
  argv?: readonly string[];
}

/**
 * Whether this run writes colour, in this order: the flag (`--color` or `--color=true` forces
 * it, `--no-color` or `--color=false` turns it off; the last one given wins), then FORCE_COLOR
 * (set and not `0` or `false` forces it, for CI logs that render colour; `0`/`false` turns it
 * off), then NO_COLOR (set to anything but the empty string turns it off), and otherwise only
 * when stdout is a terminal. The one place edgeform decides colour; views only build their
 * colourisers from the answer (CliIO.color). argv is read here rather than from yargs because
 * the output boundary exists before parsing.
 */
export function decideColor(options: { argv: readonly string[]; env: NodeJS.ProcessEnv; stdout: { isTTY?: boolean } }): boolean {
  const end = options.argv.indexOf('--');
  const flags = (end === -1 ? options.argv : options.argv.slice(0, end)).filter((a) => COLOR_FLAGS.has(a));
  const flag = flags.at(-1);
  if (flag !== undefined) return flag === '--color' || flag === '--color=true';
  const force = options.env.FORCE_COLOR;
  if (force !== undefined && force !== '') return force !== '0' && force.toLowerCase() !== 'false';
  const noColorEnv = options.env.NO_COLOR !== undefined && options.env.NO_COLOR !== '';
  return !noColorEnv && options.stdout.isTTY === true;
}

const COLOR_FLAGS = new Set(['--color', '--color=true', '--no-color', '--color=false']);

/**
 * Decides colour once (decideColor) for everything the run writes. Everything
 * written through `out` and `err` crosses one boundary, for every command: the API key is
 * redacted (with its fragments and encoded forms; a stack may pull it into a value, the
 * platform may echo it), and control and bidi characters are escaped (colour sequences pass
 * only when colour is on). Views escape platform values themselves (render/values.ts); this
 * is the last line of defence for text they did not produce, such as error messages.
 */
export function createIO(options: CreateIOOptions = {}): CliIO {
  const env = options.env ?? process.env;
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const stdin = options.stdin ?? process.stdin;
  const color = decideColor({ argv: options.argv ?? [], env, stdout });
  const secrets = secretsFromEnv(env);
  let redact = createRedactor(secrets);
  const clean = (text: string) => escapeTerminalOutput(redact(text.endsWith('\n') ? text : `${text}\n`), { color });
  return {
    env,
    stdout,
    stderr,
    stdin,
    color,
    argv: options.argv ?? [],
    out: (text) => void stdout.write(clean(text)),
    // A pipe is asynchronous in Node: without waiting, a 365 MB JSON plan piped to a slower
    // reader (gzip, jq, a CI log) was held whole in memory (1.2 GB peak against 530 MB to a file).
    async outPaced(text) {
      if (!stdout.write(clean(text))) await once(stdout, 'drain');
    },
    err: (text) => void stderr.write(clean(text)),
    sanitize: (text) => escapeTerminalOutput(redact(text), { color: false }),
    protect(values) {
      const added = values.filter((v) => v.length > 0 && !secrets.includes(v));
      if (added.length === 0) return;
      secrets.push(...added);
      redact = createRedactor(secrets);
    },
  };
}

/**
 * The commit a CI run builds, for the Markdown comment: GITHUB_SHA (GitHub Actions), else
 * CI_COMMIT_SHA (GitLab CI); undefined outside CI, and then the comment names none.
 */
export function commitFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  const sha = env.GITHUB_SHA || env.CI_COMMIT_SHA;
  return sha && /^[0-9a-f]{7,64}$/i.test(sha) ? sha : undefined;
}
