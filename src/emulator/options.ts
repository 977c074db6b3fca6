import { EdgeformError } from '../errors.js';
import type { EmulatorFixtures } from './fixtures.js';
import type { FaultSettings } from './faults.js';

/** How to start the emulator. Every field is optional. */
export interface EmulatorOptions {
  /** Interface to listen on; default 127.0.0.1. */
  host?: string;
  /** Port; default 8787; 0 picks a free one (tests). */
  port?: number;
  /** The API key requests must carry; default a generated `emu$<hex>` key (real keys contain `$`). */
  apiKey?: string;
  /** A YAML fixtures file path or an object of the same shape; default an empty world. */
  fixtures?: string | EmulatorFixtures;
  /** Delay before every answer (real ms), plus up to jitterMs more drawn from the seed. */
  latencyMs?: number;
  jitterMs?: number;
  /** Share 0..1 of requests answered 503 without changing anything (FastEdge: text/plain). */
  failRate?: number;
  /** Share 0..1 of requests answered 429 with Retry-After: 1. */
  rateLimitRate?: number;
  /** Share 0..1 of requests whose connection is dropped before anything is done. */
  dropBeforeRate?: number;
  /** Share 0..1 of requests whose connection is dropped after the change was made (the answer is lost). */
  dropAfterRate?: number;
  /** Share 0..1 of cloud tasks that end in ERROR, leaving the resource unchanged. */
  taskFailRate?: number;
  /**
   * Seed of every fault draw and task id (a whole number 0..2^32-1): the same seed gives each
   * request (the n-th with its method and path) and each task (the n-th on its resource) the
   * same fault whatever the arrival order. Default: the fixtures' seed, else a random one
   * (`faults.seed` tells which).
   */
  seed?: number;
  /** How long a cloud task takes on the emulator clock; default 2000. */
  taskDurationMs?: number;
  /** After a resize task finished, GET instance shows the old flavor this long (emulator clock); default 0. */
  readLagMs?: number;
  /** true: the clock starts at 2026-01-01T00:00:00Z and moves only through clock.advance(ms). */
  manualClock?: boolean;
  /** Serve the /__emulator/ control routes (off by default). */
  control?: boolean;
  /** Receives one line per request; default none. */
  log?: (line: string) => void;
}

/** Thrown for options that make no sense (negative latency, a rate above 1, ...). */
export class EmulatorOptionsError extends EdgeformError {
  constructor(message: string) {
    super('EDGEFORM_EMULATOR_OPTIONS', message);
  }
}

/** The largest seed: seeds are whole numbers from 0 to 2^32 - 1. */
export const MAX_SEED = 0xffff_ffff;

/** Whether a value is a valid seed (a whole number from 0 to MAX_SEED). */
export function isSeed(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_SEED;
}

/**
 * The ranges a numeric option takes: a port (whole, ≤ 65535), a duration in milliseconds (≥ 0),
 * a share of requests or tasks (0..1), a seed (whole, ≤ MAX_SEED).
 */
type Range = 'port' | 'ms' | 'share' | 'seed';

interface NumericOption {
  /** The `edgeform emulator` flag. */
  flag: string;
  range: Range;
  /** For fault settings: the key in the fixtures' `faults` section. */
  fixture?: string;
}

/**
 * Every numeric option of the emulator, written once: its CLI flag, its range and, for a fault
 * setting, its fixtures key. The CLI, startEmulator, `faults.set` and the fixtures schema all
 * check against this table (each in its own words), in this order.
 */
export const NUMERIC_OPTIONS = {
  port: { flag: 'port', range: 'port' },
  latencyMs: { flag: 'latency', range: 'ms', fixture: 'latency_ms' },
  jitterMs: { flag: 'jitter', range: 'ms', fixture: 'jitter_ms' },
  failRate: { flag: 'fail-rate', range: 'share', fixture: 'fail_rate' },
  rateLimitRate: { flag: 'rate-limit-rate', range: 'share', fixture: 'rate_limit_rate' },
  dropBeforeRate: { flag: 'drop-before-rate', range: 'share', fixture: 'drop_before_rate' },
  dropAfterRate: { flag: 'drop-after-rate', range: 'share', fixture: 'drop_after_rate' },
  taskFailRate: { flag: 'task-fail-rate', range: 'share', fixture: 'task_fail_rate' },
  taskDurationMs: { flag: 'task-duration', range: 'ms' },
  readLagMs: { flag: 'read-lag', range: 'ms' },
  seed: { flag: 'seed', range: 'seed' },
} as const satisfies Record<string, NumericOption> & { [K in keyof FaultSettings]: NumericOption & { fixture: string } };

/** The name of a numeric option (an EmulatorOptions field). */
export type NumericOptionName = keyof typeof NUMERIC_OPTIONS;

/** The fixtures keys of the fault settings (`fail_rate`, ...). */
export type FaultFixtureKey = { [K in NumericOptionName]: (typeof NUMERIC_OPTIONS)[K] extends { fixture: infer F extends string } ? F : never }[NumericOptionName];

/** The numeric options in table order. */
export const NUMERIC_OPTION_NAMES = Object.keys(NUMERIC_OPTIONS) as NumericOptionName[];

/** The fault settings (options with a fixtures key), in table order, with their fixtures keys. */
export const FAULT_SETTINGS = NUMERIC_OPTION_NAMES.flatMap((name) => {
  const option: NumericOption = NUMERIC_OPTIONS[name];
  return option.fixture === undefined ? [] : [{ name: name as keyof FaultSettings, fixture: option.fixture as FaultFixtureKey, share: option.range === 'share' }];
});

function inRange(range: Range, value: number): boolean {
  switch (range) {
    case 'port':
      return Number.isInteger(value) && value >= 0 && value <= 65535;
    case 'ms':
      return Number.isFinite(value) && value >= 0;
    case 'share':
      return Number.isFinite(value) && value >= 0 && value <= 1;
    case 'seed':
      return isSeed(value);
  }
}

/** Whether an API key is acceptable: non-empty, without whitespace. */
export function isValidApiKey(key: string): boolean {
  return key !== '' && !/\s/.test(key);
}

/**
 * Checks startEmulator's options against NUMERIC_OPTIONS and the API key rule; throws
 * EmulatorOptionsError naming the first bad option (`failRate must be between 0 and 1, got 2`).
 */
export function checkEmulatorOptions(o: EmulatorOptions): void {
  for (const name of NUMERIC_OPTION_NAMES) {
    const value = o[name];
    if (value === undefined || inRange(NUMERIC_OPTIONS[name].range, value)) continue;
    switch (NUMERIC_OPTIONS[name].range) {
      case 'port':
        throw new EmulatorOptionsError(`port must be an integer 0..65535, got ${value}`);
      case 'ms':
        throw new EmulatorOptionsError(`${name} must be a number ≥ 0, got ${value}`);
      case 'share':
        throw new EmulatorOptionsError(`${name} must be between 0 and 1, got ${value}`);
      case 'seed':
        throw new EmulatorOptionsError(`seed must be a whole number from 0 to ${MAX_SEED}, got ${value}`);
    }
  }
  if (o.apiKey !== undefined && !isValidApiKey(o.apiKey)) throw new EmulatorOptionsError('apiKey must be non-empty and contain no whitespace');
}

/** The `edgeform emulator` flag of a numeric option, without the dashes (`fail-rate`). */
export function emulatorFlag(name: NumericOptionName): string {
  return NUMERIC_OPTIONS[name].flag;
}

/**
 * What is wrong with the value of an `edgeform emulator` flag, in the CLI's words, or undefined.
 * Flags take whole numbers (milliseconds included), shares a number from 0 to 1.
 */
export function flagProblem(name: NumericOptionName, value: number): string | undefined {
  const { flag, range } = NUMERIC_OPTIONS[name];
  if (range === 'share') return inRange(range, value) ? undefined : `--${flag} must be a probability between 0 and 1 (e.g. 0.1), got ${String(value)}`;
  const max = range === 'port' ? 65535 : range === 'seed' ? MAX_SEED : Number.MAX_SAFE_INTEGER;
  return Number.isInteger(value) && value >= 0 && value <= max ? undefined : `--${flag} must be a whole number from 0 to ${max}, got ${String(value)}`;
}

/** What is wrong with a value given to `faults.set` for `name`, in its words, or undefined. */
export function faultSettingProblem(name: string, value: number): string | undefined {
  const setting = FAULT_SETTINGS.find((s) => s.name === name);
  if (!setting) return `faults.set: unknown setting ${name}`;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return `faults.set: ${name} must be a number ≥ 0`;
  if (setting.share && value > 1) return `faults.set: ${name} must be between 0 and 1`;
  return undefined;
}
