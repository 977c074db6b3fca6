/** Fault rates and delays applied to every (non-control) request. */
export interface FaultSettings {
  /** Delay added before every answer, in real milliseconds. */
  latencyMs: number;
  /** Up to this many more milliseconds, drawn at random per request. */
  jitterMs: number;
  /** Share (0..1) of requests answered 503 without changing anything. */
  failRate: number;
  /** Share (0..1) of requests answered 429 with Retry-After: 1. */
  rateLimitRate: number;
}

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
export type FaultDecision =
  | { kind: 'fail'; status: number; retryAfter?: number | undefined }
  | { kind: 'drop'; when: 'before' | 'after' }
  | undefined;

/**
 * Fault injection: rates and latency for every request, plus one-shot rules (failNext,
 * dropNext) that match the exact path or the route pattern. One-shot rules are checked in the
 * order they were added; the first match wins.
 */
export class EmulatorFaults {
  private settings: FaultSettings = { latencyMs: 0, jitterMs: 0, failRate: 0, rateLimitRate: 0 };
  private failRules: Array<FailNextRule & { remaining: number }> = [];
  private dropRules: DropNextRule[] = [];

  /** Changes some of the rates and delays; unmentioned settings stay. */
  set(settings: Partial<FaultSettings>): void {
    for (const [key, value] of Object.entries(settings) as Array<[keyof FaultSettings, number | undefined]>) {
      if (value === undefined) continue;
      if (!Number.isFinite(value) || value < 0) throw new RangeError(`faults.set: ${key} must be a number ≥ 0`);
      if ((key === 'failRate' || key === 'rateLimitRate') && value > 1) throw new RangeError(`faults.set: ${key} must be between 0 and 1`);
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

  /** Removes every one-shot rule and sets every rate and delay back to 0. */
  clear(): void {
    this.failRules = [];
    this.dropRules = [];
    this.settings = { latencyMs: 0, jitterMs: 0, failRate: 0, rateLimitRate: 0 };
  }

  /** The pending one-shot rules (for the control routes and debugging). */
  pending(): { failNext: FailNextRule[]; dropNext: DropNextRule[] } {
    return {
      failNext: this.failRules.map(({ remaining, ...rule }) => ({ ...rule, count: remaining })),
      dropNext: this.dropRules.map((rule) => ({ ...rule })),
    };
  }

  /** Real milliseconds to wait before answering this request. */
  delayFor(random: () => number): number {
    const { latencyMs, jitterMs } = this.settings;
    return latencyMs + (jitterMs > 0 ? Math.floor(random() * (jitterMs + 1)) : 0);
  }

  /**
   * Decides (and consumes) the fault for one request: a one-shot failNext or dropNext rule
   * first, then the random 503 and 429 rates.
   */
  decide(method: string, path: string, route: string | undefined, random: () => number): FaultDecision {
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
    if (this.settings.failRate > 0 && random() < this.settings.failRate) return { kind: 'fail', status: 503 };
    if (this.settings.rateLimitRate > 0 && random() < this.settings.rateLimitRate) return { kind: 'fail', status: 429, retryAfter: 1 };
    return undefined;
  }
}
