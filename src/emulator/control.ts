import type { EmulatorClock } from './clock.js';
import type { DropNextRule, EmulatorFaults, FailNextRule, FaultSettings } from './faults.js';
import { isPlainObject } from './format.js';
import { isSeed, MAX_SEED } from './options.js';
import { CONTROL_PRODUCT, fail, jsonReply, type Reply } from './reply.js';
import type { RequestLog } from './request-log.js';
import type { RouteContext, Router } from './router.js';
import type { TaskResourceKind } from './services/index.js';
import { dumpState, type EmulatorState } from './store.js';

/** What the control routes act on. */
export interface ControlTarget {
  state: EmulatorState;
  clock: EmulatorClock;
  faults: EmulatorFaults;
  requests: RequestLog;
  reset(): void;
}

function badRequest(message: string): never {
  return fail(jsonReply(400, { error: message }));
}

function objectBody(ctx: RouteContext): Record<string, unknown> {
  if (ctx.body === undefined) return {};
  if (!isPlainObject(ctx.body)) badRequest('body must be a JSON object');
  return ctx.body;
}

/** `a, b or c`. */
function orList(items: string[]): string {
  return items.length > 1 ? `${items.slice(0, -1).join(', ')} or ${items.at(-1)}` : (items[0] ?? '');
}

function asRules<T>(value: unknown, name: string): T[] {
  if (value === undefined) return [];
  const list = Array.isArray(value) ? value : [value];
  for (const item of list) if (!isPlainObject(item) || typeof item.path !== 'string') badRequest(`${name}: each rule needs a "path"`);
  return list as T[];
}

/**
 * Registers the test-only routes under /__emulator/ (no auth, no faults): GET state, POST reset,
 * POST clock/advance {ms}, GET and POST faults {seed, set, failNext, dropNext, clear}, GET
 * requests, GET mutations, POST next-task-error {kind, id, message}. Only registered when
 * control is enabled.
 */
export function registerControlRoutes(router: Router<EmulatorState>, target: ControlTarget): void {
  const add = (method: string, pattern: string, handler: (ctx: RouteContext) => Reply): void => router.add({ method, pattern, product: CONTROL_PRODUCT, handler });

  add('GET', '/__emulator/state', () => {
    const now = target.clock.now();
    return jsonReply(200, { now: new Date(now).toISOString(), ...dumpState(target.state, now) });
  });
  add('POST', '/__emulator/reset', () => {
    target.reset();
    return jsonReply(200, { ok: true });
  });
  add('POST', '/__emulator/clock/advance', (ctx) => {
    const ms = objectBody(ctx).ms;
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) badRequest('ms must be a number ≥ 0');
    target.clock.advance(ms as number);
    const now = target.clock.now();
    return jsonReply(200, { now: new Date(now).toISOString(), now_ms: now });
  });
  const faultsView = (): Reply => jsonReply(200, { seed: target.faults.seed, ...target.faults.current, ...target.faults.pending() });
  add('GET', '/__emulator/faults', faultsView);
  add('POST', '/__emulator/faults', (ctx) => {
    const body = objectBody(ctx);
    try {
      if (body.clear === true) target.faults.clear();
      if (body.seed !== undefined) {
        if (!isSeed(body.seed)) badRequest(`seed must be a whole number from 0 to ${MAX_SEED}`);
        target.faults.reseed(body.seed);
      }
      if (body.set !== undefined) {
        if (!isPlainObject(body.set)) badRequest('set must be an object');
        target.faults.set(body.set as Partial<FaultSettings>);
      }
      for (const rule of asRules<FailNextRule>(body.failNext, 'failNext')) target.faults.failNext(rule);
      for (const rule of asRules<DropNextRule>(body.dropNext, 'dropNext')) target.faults.dropNext(rule);
    } catch (error) {
      if (error instanceof RangeError) badRequest(error.message);
      throw error;
    }
    return faultsView();
  });
  add('GET', '/__emulator/requests', () => jsonReply(200, { requests: [...target.requests], counts: target.requests.countByRoute() }));
  add('GET', '/__emulator/mutations', () => jsonReply(200, { mutations: target.state.mutations }));
  add('POST', '/__emulator/next-task-error', (ctx) => {
    const { kind, id, message } = objectBody(ctx);
    const kinds = [...target.state.taskTargets.keys()];
    if (typeof kind !== 'string' || !kinds.includes(kind)) badRequest(`kind must be ${orList(kinds)}`);
    if (typeof id !== 'string' || typeof message !== 'string' || message === '') badRequest('id and message must be non-empty strings');
    try {
      target.state.setNextTaskError(kind as TaskResourceKind, id as string, message as string);
    } catch (error) {
      fail(jsonReply(404, { error: (error as Error).message }));
    }
    return jsonReply(200, { ok: true });
  });
}
