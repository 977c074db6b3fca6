import { createHash } from 'node:crypto';
import { FAULT_SETTINGS, faultSettingProblem, isSeed, MAX_SEED } from './options.js';

/** Fault rates and delays applied to every (non-control) request, and to every task started. */
export interface FaultSettings {
  /** Delay added before every answer, in real milliseconds. */
  latencyMs: number;
  /** Up to this many more milliseconds, drawn per request from the seed. */
  jitterMs: number;
  /** Share (0..1) of requests answered 503 without changing anything. */
  failRate: number;
  /** Share (0..1) of requests answered 429 with Retry-After: 1. */
  rateLimitRate: number;
  /** Share (0..1) of requests whose connection is dropped before anything is done. */
  dropBeforeRate: number;
  /** Share (0..1) of requests whose connection is dropped after the change was made (the answer is lost). */
  dropAfterRate: number;
  /** Share (0..1) of cloud tasks that end in ERROR (leaving the resource unchanged). */
  taskFailRate: number;
}

// fromEntries types its keys as string; FAULT_SETTINGS lists every FaultSettings name, so this record is complete.
const NO_FAULTS: Readonly<FaultSettings> = Object.freeze(Object.fromEntries(FAULT_SETTINGS.map((s) => [s.name, 0])) as unknown as FaultSettings);

/** The message of a task that ends in ERROR because of `taskFailRate`. */
export const INJECTED_TASK_ERROR = 'Task failed (injected by the emulator)';

/** Answer the next matching request(s) with `status` instead of running them (nothing changes). */
export interface FailNextRule {
  /** Any method when omitted. */
  method?: string | undefined;
  /** The exact request path or the route pattern, e.g. /cloud/v1/instances/{project_id}/{region_id}/{instance_id}/changeflavor. */
  path: string;
  status: number;
  /** How many requests to fail; default 1. */
  count?: number | undefined;
  /** Retry-After header value in seconds (sent with 429 and 503; 429 defaults to 1). */
  retryAfter?: number | undefined;
}

/** Destroy the socket of the next matching request without answering, before or after the change is made. */
export interface DropNextRule {
  method?: string | undefined;
  path: string;
  when: 'before' | 'after';
}

/** What the server should do to a request because of a fault. */
export type FaultDecision = { kind: 'fail'; status: number; retryAfter?: number | undefined } | { kind: 'drop'; when: 'before' | 'after' } | undefined;

/** What faults do to one request: how long to wait before answering, and the fault if any. */
export interface RequestFaults {
  /** Real milliseconds to wait before answering (latency plus this request's jitter). */
  delayMs: number;
  fault: FaultDecision;
}

/** What faults decide for a task about to start: its id, and the error it will end in (null: it succeeds). */
export interface TaskDraw {
  id: string;
  error: string | null;
}

/** A random seed, for an emulator started without one. */
export function randomSeed(): number {
  return Math.floor(Math.random() * (MAX_SEED + 1));
}

/**
 * Eight uniform numbers in [0, 1) derived from the seed and a key (SHA-256, 32 bits each).
 * A keyed hash rather than a generator stream: a draw depends only on what it is for, never on
 * how many draws other requests made before it, so parallel requests arriving in another order
 * see the same faults.
 */
function keyedUnits(seed: number, key: string): number[] {
  const digest = createHash('sha256').update(`${seed}\u0000${key}`).digest();
  return Array.from({ length: 8 }, (_, i) => digest.readUInt32BE(i * 4) / 0x1_0000_0000);
}

/** A version-4-shaped UUID derived from the seed and a key. */
function keyedUuid(seed: number, key: string): string {
  const h = createHash('sha256').update(`${seed}\u0000uuid\u0000${key}`).digest('hex');
  const variant = ((parseInt(h.charAt(16), 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * Fault injection: rates and latency for every request and every task, plus one-shot rules
 * (failNext, dropNext) that match the exact path or the route pattern. One-shot rules are
 * checked in the order they were added; the first match wins.
 *
 * Every chance is drawn from the seed and a stable key, never from the arrival order: the n-th
 * request with a given method and path (`GET /cloud/v1/... #3`), or the n-th task started on a
 * given resource. The same seed therefore gives each request the same fault whatever the
 * interleaving of parallel requests, and task ids are derived the same way so that task polls
 * (whose paths carry the id) repeat too.
 */
export class EmulatorFaults {
  private settings: FaultSettings = { ...NO_FAULTS };
  private failRules: Array<FailNextRule & { remaining: number }> = [];
  private dropRules: DropNextRule[] = [];
  private currentSeed: number;
  /** Requests seen per `METHOD path`, and tasks started per `kind id`: the counters the keys carry. */
  private readonly seen = new Map<string, number>();

  constructor(seed: number = randomSeed()) {
    if (!isSeed(seed)) throw new RangeError(`faults: the seed must be a whole number from 0 to ${MAX_SEED}`);
    this.currentSeed = seed;
  }

  /** The seed every draw derives from. */
  get seed(): number {
    return this.currentSeed;
  }

  /**
   * Sets the seed and restarts the counters of the keys, so the same sequence of requests and
   * tasks sees the same faults (and task ids) again. emulator.reset() does this with the start seed.
   */
  reseed(seed: number): void {
    if (!isSeed(seed)) throw new RangeError(`faults.reseed: the seed must be a whole number from 0 to ${MAX_SEED}`);
    this.currentSeed = seed;
    this.seen.clear();
  }

  /** Changes some of the rates and delays; unmentioned settings stay. */
  set(settings: Partial<FaultSettings>): void {
    for (const [key, value] of Object.entries(settings) as Array<[keyof FaultSettings, number | undefined]>) {
      if (value === undefined) continue;
      const problem = faultSettingProblem(key, value);
      if (problem !== undefined) throw new RangeError(problem);
      this.settings[key] = value;
    }
  }

  /** The current rates and delays. */
  get current(): FaultSettings {
    return { ...this.settings };
  }

  /** Fails the next `count` (default 1) requests matching method and path with `status`. */
  failNext(rule: FailNextRule): void {
    if (!Number.isInteger(rule.status) || rule.status < 100 || rule.status > 599) throw new RangeError('failNext: status must be an HTTP status code');
    const count = rule.count ?? 1;
    if (!Number.isInteger(count) || count < 1) throw new RangeError('failNext: count must be an integer ≥ 1');
    this.failRules.push({ ...rule, remaining: count });
  }

  /** Drops the connection of the next request matching method and path, before or after its change is made. */
  dropNext(rule: DropNextRule): void {
    if (rule.when !== 'before' && rule.when !== 'after') throw new RangeError("dropNext: when must be 'before' or 'after'");
    this.dropRules.push({ ...rule });
  }

  /** Removes every one-shot rule and sets every rate and delay back to 0 (the seed and its counters stay). */
  clear(): void {
    this.failRules = [];
    this.dropRules = [];
    this.settings = { ...NO_FAULTS };
  }

  /** The pending one-shot rules (for the control routes and debugging). */
  pending(): { failNext: FailNextRule[]; dropNext: DropNextRule[] } {
    return {
      failNext: this.failRules.map(({ remaining, ...rule }) => ({ ...rule, count: remaining })),
      dropNext: this.dropRules.map((rule) => ({ ...rule })),
    };
  }

  /**
   * Decides (and consumes) the faults of one request: a one-shot failNext or dropNext rule
   * first, then the rates (503, 429, drop before, drop after, each drawn on its own), and the
   * delay. Every draw comes from the seed and the key `METHOD path #n`.
   */
  decide(method: string, path: string, route: string | undefined): RequestFaults {
    const [fail = 0, limit = 0, dropBefore = 0, dropAfter = 0, jitter = 0] = keyedUnits(this.currentSeed, this.nextKey(`${method} ${path}`));
    const { latencyMs, jitterMs, failRate, rateLimitRate, dropBeforeRate, dropAfterRate } = this.settings;
    const delayMs = latencyMs + (jitterMs > 0 ? Math.floor(jitter * (jitterMs + 1)) : 0);
    return { delayMs, fault: this.oneShot(method, path, route) ?? rateFault() };

    function rateFault(): FaultDecision {
      if (fail < failRate) return { kind: 'fail', status: 503 };
      if (limit < rateLimitRate) return { kind: 'fail', status: 429, retryAfter: 1 };
      if (dropBefore < dropBeforeRate) return { kind: 'drop', when: 'before' };
      if (dropAfter < dropAfterRate) return { kind: 'drop', when: 'after' };
      return undefined;
    }
  }

  /**
   * Draws for a task about to start on a resource (the n-th on it): its id, and whether it ends
   * in ERROR because of `taskFailRate`. `taken` tells ids already in use, which are skipped (a
   * reseed without a reset restarts the counters while old tasks remain).
   */
  drawTask(kind: string, resourceId: string, taken: (id: string) => boolean): TaskDraw {
    let key = this.nextKey(`task ${kind} ${resourceId}`);
    const [failure = 0] = keyedUnits(this.currentSeed, key);
    let id = keyedUuid(this.currentSeed, key);
    while (taken(id)) {
      key = this.nextKey(`task ${kind} ${resourceId}`);
      id = keyedUuid(this.currentSeed, key);
    }
    return { id, error: failure < this.settings.taskFailRate ? INJECTED_TASK_ERROR : null };
  }

  /** `name #n`, n counting from 0 per name. */
  private nextKey(name: string): string {
    const n = this.seen.get(name) ?? 0;
    this.seen.set(name, n + 1);
    return `${name} #${n}`;
  }

  private oneShot(method: string, path: string, route: string | undefined): FaultDecision {
    const matches = (rule: { method?: string | undefined; path: string }): boolean =>
      (rule.method === undefined || rule.method.toUpperCase() === method) && (rule.path === path || rule.path === route);
    const failIndex = this.failRules.findIndex(matches);
    if (failIndex >= 0) {
      const rule = this.failRules[failIndex] as FailNextRule & { remaining: number };
      rule.remaining -= 1;
      if (rule.remaining <= 0) this.failRules.splice(failIndex, 1);
      return { kind: 'fail', status: rule.status, retryAfter: rule.retryAfter ?? (rule.status === 429 ? 1 : undefined) };
    }
    const dropIndex = this.dropRules.findIndex(matches);
    if (dropIndex >= 0) {
      const [rule] = this.dropRules.splice(dropIndex, 1);
      return { kind: 'drop', when: (rule as DropNextRule).when };
    }
    return undefined;
  }
}
