import kleur from 'kleur';
import { createRedactor, secretsFromEnv } from '../api/redact.js';
import { escapeTerminalOutput } from '../render/values.js';

/** Where a command writes and what it knows about its terminal; built once by the entry point. */
export interface CliIO {
  readonly env: NodeJS.ProcessEnv;
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean };
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean };
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Whether ANSI colours are on (off for NO_COLOR, --no-color and a non-TTY stdout). */
  readonly color: boolean;
  out(text: string): void;
  err(text: string): void;
}

/** Exit codes, the only ones edgeform uses (see README "Exit codes"). */
export const ExitCode = {
  ok: 0,
  error: 1,
  changes: 2,
  interrupted: 130,
} as const;

export interface CreateIOOptions {
  env?: NodeJS.ProcessEnv;
  stdout?: CliIO['stdout'];
  stderr?: CliIO['stderr'];
  stdin?: CliIO['stdin'];
  /** false when --no-color was given. */
  colorFlag?: boolean;
}

/**
 * Decides colour once (NO_COLOR, --no-color, TTY) and sets kleur accordingly. Everything
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
  const noColorEnv = env.NO_COLOR !== undefined && env.NO_COLOR !== '';
  const color = options.colorFlag !== false && !noColorEnv && stdout.isTTY === true;
  kleur.enabled = color;
  const redact = createRedactor(secretsFromEnv(env));
  const clean = (text: string) => escapeTerminalOutput(redact(text.endsWith('\n') ? text : `${text}\n`), { color });
  return {
    env,
    stdout,
    stderr,
    stdin,
    color,
    out: (text) => void stdout.write(clean(text)),
    err: (text) => void stderr.write(clean(text)),
  };
}
