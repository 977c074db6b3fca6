import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { INVALID_TOKEN_BODY, MISSING_CREDENTIALS_BODY, checkAuth } from './auth.js';
import { createClock, type EmulatorClock } from './clock.js';
import { registerControlRoutes } from './control.js';
import { EmulatorFaults, randomSeed } from './faults.js';
import { loadFixtures, type EmulatorFixtures, type NormalizedFixtures } from './fixtures.js';
import { newUuid } from './format.js';
import { checkEmulatorOptions, FAULT_SETTINGS, type EmulatorOptions } from './options.js';
import { CONTROL_PRODUCT, ReplyError, reasonPhrase, type ApiProduct, type Reply } from './reply.js';
import { createRequestLog, type RequestLog, type RequestLogEntry } from './request-log.js';
import { Router, type RouteContext, type RouteSettings } from './router.js';
import { EMULATOR_SERVICES } from './services/index.js';
import { createEmulatorState, loadState, type EmulatorMutationLog, type EmulatorState } from './store.js';

/** A running emulator. */
export interface Emulator {
  /** Base URL without trailing slash, e.g. http://127.0.0.1:54321. */
  url: string;
  apiKey: string;
  /** The in-memory platform; tests read and mutate it directly. */
  state: EmulatorState;
  clock: EmulatorClock;
  faults: EmulatorFaults;
  /** Every request seen, with countByRoute(). */
  requests: RequestLog;
  /** Every change the emulator made, in order (the same array as state.mutations). */
  mutations: EmulatorMutationLog;
  /** Back to the fixtures: state, tasks, request and mutation logs, faults (options + fixture faults, the start seed) and the clock's start. */
  reset(): void;
  /** Stops listening and closes every connection. */
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 5 * 1024 * 1024;
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** Generates an API key in the platform's style: it contains a `$`. */
function generateApiKey(): string {
  return `emu$${randomBytes(16).toString('hex')}`;
}

function applyBaseFaults(faults: EmulatorFaults, o: EmulatorOptions, f: NormalizedFixtures, seed: number): void {
  faults.clear();
  faults.reseed(seed);
  const ff = f.faults;
  faults.set(Object.fromEntries(FAULT_SETTINGS.map(({ name, fixture }) => [name, o[name] ?? ff?.[fixture] ?? 0])));
  for (const rule of ff?.fail_next ?? []) faults.failNext({ method: rule.method, path: rule.path, status: rule.status, count: rule.count, retryAfter: rule.retry_after });
  for (const rule of ff?.drop_next ?? []) faults.dropNext({ method: rule.method, path: rule.path, when: rule.when });
}

function readBody(req: IncomingMessage): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? 'too-large' : chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The products of the services, for answering paths no route matches in the shape of the product they belong to. */
const PRODUCTS: readonly ApiProduct[] = [...new Set(EMULATOR_SERVICES.map((service) => service.product))];

function productOfPath(path: string): ApiProduct {
  return PRODUCTS.find((product) => path.startsWith(product.pathPrefix)) ?? CONTROL_PRODUCT;
}

/** What a running emulator's request handling works over: its options, key, platform state, faults, clock, logs and routes. */
interface ServerState {
  readonly options: EmulatorOptions;
  readonly apiKey: string;
  readonly state: EmulatorState;
  readonly clock: EmulatorClock;
  readonly faults: EmulatorFaults;
  readonly settings: RouteSettings;
  readonly requests: RequestLog;
  readonly router: Router<EmulatorState>;
  /** Requests being handled now (arrived, not yet answered or dropped). */
  inFlight: number;
}

/** One request as read off the wire and matched to a route. */
interface IncomingRequest {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly started: number;
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly match: ReturnType<Router<EmulatorState>['match']>;
  readonly route: string;
  readonly product: ApiProduct;
  readonly requestId: string;
  readonly entry: RequestLogEntry;
}

/**
 * Starts the platform emulator: a node:http server holding the platform's resources in memory.
 * No timer drives state: due tasks are settled at the start of every request and on
 * clock.advance, so tests are deterministic.
 */
export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  checkEmulatorOptions(options);
  const fixtures = loadFixtures(options.fixtures);
  const host = options.host ?? '127.0.0.1';
  const seed = options.seed ?? fixtures.faults?.seed ?? randomSeed();
  const faults = new EmulatorFaults(seed);
  const state = createEmulatorState();
  loadState(state, fixtures);
  const clock = createClock({ manual: options.manualClock === true, onAdvance: (now) => state.settle(now) });
  const s: ServerState = {
    options,
    apiKey: options.apiKey ?? generateApiKey(),
    state,
    clock,
    faults,
    settings: {
      taskDurationMs: options.taskDurationMs ?? 2000,
      readLagMs: options.readLagMs ?? 0,
      drawTask: (kind, resourceId, taken) => faults.drawTask(kind, resourceId, taken),
    },
    requests: createRequestLog(),
    router: new Router<EmulatorState>(),
    inFlight: 0,
  };
  applyBaseFaults(faults, options, fixtures, seed);
  const reset = (): void => {
    clock.rewind();
    loadState(state, fixtures);
    s.requests.length = 0;
    applyBaseFaults(faults, options, fixtures, seed);
  };
  for (const service of EMULATOR_SERVICES) {
    for (const route of service.routes) s.router.add({ ...route, product: service.product });
  }
  if (options.control === true) registerControlRoutes(s.router, { state, clock: s.clock, faults, requests: s.requests, reset });

  const server = createServer((req, res) => {
    handleRequest(s, req, res).catch((error: unknown) => {
      options.log?.(`emulator bug: ${(error as Error).stack ?? String(error)}`);
      if (!res.headersSent) {
        res.writeHead(500, { 'Content-Type': 'text/plain' });
        res.end('internal emulator error');
      } else res.destroy();
    });
  });
  server.keepAliveTimeout = 30_000;
  const url = await listen(server, options.port ?? 8787, host);

  let closed: Promise<void> | undefined;
  return {
    url,
    apiKey: s.apiKey,
    state,
    clock: s.clock,
    faults,
    requests: s.requests,
    mutations: state.mutations,
    reset,
    close(): Promise<void> {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}

/** Listens on the port and host; the base URL (without trailing slash) it answers on. */
async function listen(server: Server, port: number, host: string): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const hostPart = address.family === 'IPv6' || host.includes(':') ? `[${address.address}]` : host;
  return `http://${hostPart}:${address.port}`;
}

/** Reads a request's method and path, matches its route, logs it, and serves it. */
async function handleRequest(s: ServerState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const started = Date.now();
  const method = (req.method ?? 'GET').toUpperCase();
  const rawUrl = req.url ?? '/';
  const q = rawUrl.indexOf('?');
  const path = q >= 0 ? rawUrl.slice(0, q) : rawUrl;
  const query = new URLSearchParams(q >= 0 ? rawUrl.slice(q + 1) : '');
  const match = s.router.match(method, path);
  const route = match.kind === 'found' ? match.route.pattern : match.kind === 'method-not-allowed' ? match.pattern : '(unmatched)';
  const product: ApiProduct = match.kind === 'found' ? match.route.product : match.kind === 'method-not-allowed' ? match.product : productOfPath(path);
  s.inFlight += 1;
  const entry: RequestLogEntry = { method, path, route, status: 0, time: s.clock.now(), inFlight: s.inFlight };
  s.requests.push(entry);
  try {
    await serveRequest(s, { req, res, started, method, path, query, match, route, product, requestId: newUuid(), entry });
  } finally {
    s.inFlight -= 1;
  }
}

/** What happens to a request before its route runs: an injected fault or delay, the key check, 404, 405, 413. */
type Gate = { kind: 'reply'; reply: Reply } | { kind: 'drop' } | { kind: 'pass'; dropAfter: boolean };

/** Serves a request: its gate, then its body parsed and its route's handler run (a drop after it, when a fault says so). */
async function serveRequest(s: ServerState, r: IncomingRequest): Promise<void> {
  const raw = await readBody(r.req);
  const gate = await passGate(s, r, raw);
  if (gate.kind === 'drop') return dropRequest(s, r);
  if (gate.kind === 'reply') return sendReply(s, r, gate.reply);
  if (r.match.kind !== 'found') return; // passGate answers every other match.
  const { method, product, requestId } = r;
  let body: unknown;
  if (raw !== 'too-large' && raw.length > 0 && BODY_METHODS.has(method)) {
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch (error) {
      const detail = (error as Error).message;
      return sendReply(s, r, product.error(400, product.invalidJsonMessage?.(detail) ?? `Invalid JSON in request body: ${detail}`, requestId));
    }
  }
  const now = s.clock.now();
  s.state.settle(now);
  const { path, route, query, match } = r;
  const ctx: RouteContext<EmulatorState> = { method, path, route, params: match.params, query, body, requestId, now, state: s.state, clock: s.clock, settings: s.settings };
  let reply: Reply;
  try {
    reply = match.route.handler(ctx);
  } catch (error) {
    if (!(error instanceof ReplyError)) {
      s.options.log?.(`emulator bug while handling ${method} ${path}: ${(error as Error).stack ?? String(error)}`);
      reply = product.error(500, 'Internal error in the emulator', requestId);
    } else {
      reply = error.reply;
    }
  }
  if (gate.dropAfter) return dropRequest(s, r);
  sendReply(s, r, reply);
}

/** The checks a request meets before its route, in the platform's order (faults, then 401 before 404), each a reply or a drop. */
async function passGate(s: ServerState, r: IncomingRequest, raw: Buffer | 'too-large'): Promise<Gate> {
  const { method, path, match, product, requestId } = r;
  const isControl = match.kind === 'found' && match.route.product === CONTROL_PRODUCT;
  let dropAfter = false;
  if (!isControl) {
    const { delayMs, fault: decision } = s.faults.decide(method, path, match.kind === 'found' ? match.route.pattern : undefined);
    if (delayMs > 0) await sleep(delayMs);
    if (decision?.kind === 'fail') {
      const reply = product.error(decision.status, `${reasonPhrase(decision.status)} (injected by the emulator)`, requestId);
      if (decision.retryAfter !== undefined) reply.headers = { ...reply.headers, 'Retry-After': String(decision.retryAfter) };
      return { kind: 'reply', reply };
    }
    if (decision?.kind === 'drop') {
      if (decision.when === 'before') return { kind: 'drop' };
      dropAfter = true;
    }
    // The control routes, when off, do not exist at all; every platform path needs the key
    // first (an unknown one too, as on the platform: 401 before 404).
    const notFound = (): Gate => ({ kind: 'reply', reply: product.error(404, `The requested URL ${path} was not found on this server.`, requestId) });
    if (match.kind === 'not-found' && path.startsWith(CONTROL_PRODUCT.pathPrefix)) return notFound();
    const auth = checkAuth(r.req.headers.authorization, s.apiKey);
    if (auth !== 'ok') {
      return { kind: 'reply', reply: { status: 401, json: auth === 'missing' ? MISSING_CREDENTIALS_BODY : INVALID_TOKEN_BODY, headers: { 'WWW-Authenticate': 'APIKey' } } };
    }
    if (match.kind === 'not-found') return notFound();
  }
  if (match.kind === 'method-not-allowed') {
    const reply = product.error(405, product.methodNotAllowedMessage?.(method) ?? 'HTTP 405: Method Not Allowed', requestId);
    reply.headers = { ...reply.headers, Allow: match.allowed.join(', ') };
    return { kind: 'reply', reply };
  }
  if (raw === 'too-large') return { kind: 'reply', reply: product.error(413, 'Request body too large', requestId) };
  return { kind: 'pass', dropAfter };
}

/** Writes a reply (JSON or text, with the product's request id header), records its status and logs it. */
function sendReply(s: ServerState, r: IncomingRequest, reply: Reply): void {
  const { req, res, entry } = r;
  const headers: Record<string, string | number> = { ...reply.headers };
  if (r.product.requestIdHeader === true) headers['X-Request-ID'] = r.requestId;
  let payload: string | undefined;
  if (reply.json !== undefined) {
    payload = JSON.stringify(reply.json);
    headers['Content-Type'] = 'application/json';
  } else if (reply.text !== undefined) {
    payload = reply.text;
    headers['Content-Type'] = 'text/plain; charset=utf-8';
  }
  headers['Content-Length'] = payload === undefined ? 0 : Buffer.byteLength(payload);
  entry.status = reply.status;
  res.writeHead(reply.status, headers);
  res.end(req.method === 'HEAD' ? undefined : payload);
  s.options.log?.(`${entry.method} ${req.url ?? entry.path} ${reply.status} ${Date.now() - r.started}ms`);
}

/** Drops the connection without an answer (status 0 in the request log). */
function dropRequest(s: ServerState, r: IncomingRequest): void {
  r.entry.status = 0;
  r.req.socket.destroy();
  s.options.log?.(`${r.entry.method} ${r.req.url ?? r.entry.path} dropped ${Date.now() - r.started}ms`);
}
