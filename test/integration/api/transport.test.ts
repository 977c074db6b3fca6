/**
 * The client's transport against real loopback HTTP servers that misbehave in ways the
 * platform emulator does not model (hanging, counting sockets). Platform behaviour (error
 * bodies, tasks, faults) is tested against the emulator in client-emulator.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient, type ApiClientOptions } from '../../../src/api/client.js';
import {
  ApiConnectionError,
  ApiResponseParseError,
  ApiResponseTooLargeError,
  ApiTimeoutError,
  InternalServerError,
  NotFoundError,
  RateLimitError,
} from '../../../src/api/errors.js';
import { createRetryQuota } from '../../../src/api/retry.js';
import { VERSION } from '../../../src/version.js';
import { closedPort, loopbackTestScope, sendJson, startLoopbackServer, type LoopbackServer } from '../../helpers/loopback-server.js';
import { waitFor } from '../../helpers/wait.js';

const KEY = '29841$c767b250$abc';
const { server, defer } = loopbackTestScope();

function client(baseUrl: string, extra: Partial<ApiClientOptions> = {}): { api: ApiClient; sleeps: number[] } {
  const sleeps: number[] = [];
  const api = createApiClient({
    baseUrl,
    apiKey: KEY,
    sleep: async (ms) => void sleeps.push(ms),
    random: () => 0,
    ...extra,
  });
  defer(() => api.close());
  return { api, sleeps };
}

describe('request shape', () => {
  it('sends the auth, identity and JSON headers, the body, the query and the base path prefix', async () => {
    const s = await server((_req, res) => sendJson(res, 200, { ok: true }, { 'x-request-id': 'req-1' }));
    const { api } = client(`${s.url}/gw/`);
    const res = await api.post('/cloud/v1/things', { a: 1, tags: null }, { query: { state: ['NEW', 'RUNNING'], limit: 5 } });
    expect(res).toMatchObject({ status: 200, body: { ok: true }, requestId: 'req-1' });
    const [seen] = s.requests;
    expect(seen?.method).toBe('POST');
    expect(seen?.url).toBe('/gw/cloud/v1/things?state=NEW&state=RUNNING&limit=5');
    expect(seen?.headers.authorization).toBe(`APIKey ${KEY}`);
    expect(seen?.headers['user-agent']).toBe(`edgeform/${VERSION}`);
    expect(seen?.headers.accept).toBe('application/json');
    expect(seen?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(seen?.body ?? '')).toEqual({ a: 1, tags: null });
  });

  it('sends no body or content type on GET and DELETE, and reads a 204 as null', async () => {
    const s = await server((_req, res) => {
      res.writeHead(204);
      res.end();
    });
    const { api } = client(s.url);
    expect((await api.delete('/streaming/players/55')).body).toBeNull();
    expect(s.requests[0]?.headers['content-type']).toBeUndefined();
    expect(s.requests[0]?.body).toBe('');
  });

  it('returns text bodies as text and refuses a 2xx that claims JSON but is not', async () => {
    const s = await server((req, res) => {
      if (req.url === '/text') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('1234');
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"broken":');
      }
    });
    const { api } = client(s.url);
    expect((await api.get('/text')).body).toBe('1234');
    await expect(api.get('/json')).rejects.toBeInstanceOf(ApiResponseParseError);
  });
});

describe('answer size limit', () => {
  const LIMIT = 1024;
  const sendText = (res: Parameters<Parameters<typeof startLoopbackServer>[0]>[1], status: number, text: string, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(text);
  };
  /** A JSON object of exactly `bytes` bytes. */
  const objectOf = (bytes: number) => `{"p":"${'x'.repeat(bytes - 8)}"}`;

  it('reads an answer of exactly the limit and refuses one byte more, with or without Content-Length', async () => {
    const s = await server((req, res) => {
      const bytes = req.url.startsWith('/at') ? LIMIT : LIMIT + 1;
      sendText(res, 200, objectOf(bytes), req.url.endsWith('/declared') ? { 'content-length': String(bytes) } : {});
    });
    const { api } = client(s.url, { maxResponseBytes: LIMIT });
    expect((await api.get<{ p: string }>('/at/declared')).body.p).toHaveLength(LIMIT - 8);
    expect((await api.get<{ p: string }>('/at/chunked')).body.p).toHaveLength(LIMIT - 8);
    await expect(api.get('/over/declared')).rejects.toMatchObject({ code: 'EDGEFORM_API_RESPONSE_TOO_LARGE', declaredBytes: LIMIT + 1 });
    const chunked = await api.get('/over/chunked').catch((e: unknown) => e);
    expect(chunked).toBeInstanceOf(ApiResponseTooLargeError);
    expect(chunked).toMatchObject({
      declaredBytes: null,
      limitBytes: LIMIT,
      message: 'GET /over/chunked: the 200 answer is larger than the 1 KiB limit; edgeform stopped reading it',
    });
  });

  it('keeps the status of an error answer over the limit, without its body, and retries it as usual', async () => {
    let n = 0;
    const s = await server((_req, res) => (++n === 1 ? sendText(res, 503, `{"message":"${'busy '.repeat(1000)}"}`) : sendJson(res, 200, { id: 1 })));
    const { api, sleeps } = client(s.url, { maxResponseBytes: LIMIT });
    expect((await api.get('/cloud/v1/x')).body).toEqual({ id: 1 });
    expect(sleeps).toEqual([250]);
    const s2 = await server((_req, res) => sendText(res, 404, `{"message":"${'gone '.repeat(1000)}"}`));
    const error = await client(s2.url, { maxResponseBytes: LIMIT })
      .api.get('/cloud/v1/y')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ body: null, platformMessage: null });
  });

  it('drops a leading byte order mark, as before', async () => {
    const s = await server((_req, res) => sendText(res, 200, '\uFEFF{"id":1}'));
    expect((await client(s.url).api.get('/x')).body).toEqual({ id: 1 });
  });
});

describe('connection pool', () => {
  it('keeps connections alive between requests', async () => {
    const s = await server((_req, res) => sendJson(res, 200, {}));
    const { api } = client(s.url);
    for (let i = 0; i < 10; i++) await api.get('/cloud/v1/x');
    // undici may alternate between two pooled connections, but reuses them rather than reconnecting.
    expect(new Set(s.requests.map((r) => r.socket)).size).toBeLessThanOrEqual(2);
  });

  it('never opens more connections than configured', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const s = await server((_req, res) => {
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      setTimeout(() => {
        inFlight -= 1;
        sendJson(res, 200, {});
      }, 20);
    });
    const { api } = client(s.url, { connections: 3 });
    await Promise.all(Array.from({ length: 12 }, () => api.get('/cloud/v1/x')));
    expect(maxInFlight).toBeLessThanOrEqual(3);
    expect(new Set(s.requests.map((r) => r.socket)).size).toBeLessThanOrEqual(3);
  });
});

describe('retries', () => {
  it('retries a 503 GET with backoff and returns the success', async () => {
    let n = 0;
    const s = await server((_req, res) => (++n <= 2 ? sendJson(res, 503, { message: 'busy' }) : sendJson(res, 200, { id: 1 })));
    const retries: number[] = [];
    const { api, sleeps } = client(s.url, { onRetry: (e) => retries.push(e.attempt) });
    expect((await api.get('/cloud/v1/x')).body).toEqual({ id: 1 });
    expect(sleeps).toEqual([250, 500]);
    expect(retries).toEqual([1, 2]);
  });

  it('gives up after 6 attempts and says so', async () => {
    const s = await server((_req, res) => sendJson(res, 500, { exception_class: 'InternalServerError', message: 'boom', request_id: 'r-9' }));
    const { api, sleeps } = client(s.url);
    const error = await api.get('/cloud/v1/x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as Error).message).toBe('GET /cloud/v1/x: 500 Internal Server Error: boom (request_id r-9); gave up after 6 attempts');
    expect(s.requests).toHaveLength(6);
    expect(sleeps).toHaveLength(5);
  });

  it('does not retry a 404', async () => {
    const s = await server((_req, res) => sendJson(res, 404, { exception_class: 'NotFoundError', message: 'nope', request_id: 'r' }));
    const { api, sleeps } = client(s.url);
    await expect(api.get('/cloud/v1/x')).rejects.toBeInstanceOf(NotFoundError);
    expect(sleeps).toEqual([]);
  });

  it('does not retry a 500 POST (it may have started work)', async () => {
    const s = await server((_req, res) => sendJson(res, 500, { message: 'boom' }));
    const { api } = client(s.url);
    await expect(api.post('/cloud/v1/x', {})).rejects.toBeInstanceOf(InternalServerError);
    expect(s.requests).toHaveLength(1);
  });

  it('honours Retry-After as an HTTP date against the injected clock', async () => {
    let n = 0;
    const s = await server((_req, res) => (++n === 1 ? sendJson(res, 429, { error: 'slow' }, { 'retry-after': 'Wed, 01 Jan 2025 12:00:03 GMT' }) : sendJson(res, 200, {})));
    const { api, sleeps } = client(s.url, { now: () => Date.parse('2025-01-01T12:00:00Z') });
    await api.get('/x');
    expect(sleeps).toEqual([3000]);
  });

  it('gives up at once when Retry-After exceeds 60 s', async () => {
    const s = await server((_req, res) => sendJson(res, 429, { error: 'slow' }, { 'retry-after': '120' }));
    const { api, sleeps } = client(s.url);
    const error = (await api.get('/fastedge/v1/apps').catch((e: unknown) => e)) as RateLimitError;
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.retryAfterMs).toBe(120_000);
    expect(error.message).toContain('asked to retry after 120 s');
    expect(sleeps).toEqual([]);
  });

  it('shares one retry quota across requests, so an outage fails fast', async () => {
    const s = await server((_req, res) => sendJson(res, 503, { message: 'down' }));
    const quota = createRetryQuota({ capacity: 25 });
    const { api, sleeps } = client(s.url, { retryQuota: quota });
    await expect(api.get('/a')).rejects.toThrow(/gave up after 6 attempts/);
    const error = await api.get('/b').catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/retry quota is exhausted, too many requests are failing \(0 of 25 tokens left/);
    expect(error).toMatchObject({ quotaExhausted: true });
    expect(sleeps).toHaveLength(5);
    expect(s.requests).toHaveLength(7);
  });

  it('refills the quota as requests succeed: the cost of the retry that led to a success, one for a success at once', async () => {
    let n = 0;
    const s = await server((_req, res) => (++n === 2 ? sendJson(res, 503, { message: 'blip' }) : sendJson(res, 200, {})));
    const quota = createRetryQuota({ capacity: 20 });
    quota.take(10);
    const { api } = client(s.url, { retryQuota: quota });
    await api.get('/a');
    expect(quota.available).toBe(11);
    // 503 (a retry costs 5), then 200: the 5 come back.
    await api.get('/b');
    expect(quota.available).toBe(11);
    expect(s.requests).toHaveLength(3);
  });
});

describe('connection failures', () => {
  it('connection refused: retried even for a POST, then ApiConnectionError with requestSent false', async () => {
    const { api, sleeps } = client(await closedPort());
    const error = (await api.post('/cloud/v1/instances/1/76/x/changeflavor', { flavor_id: 'f' }).catch((e: unknown) => e)) as ApiConnectionError;
    expect(error).toBeInstanceOf(ApiConnectionError);
    expect(error.requestSent).toBe(false);
    expect(error.reason).toBe('ECONNREFUSED');
    expect(error.message).toMatch(/never reached the platform; gave up after 4 attempts/);
    expect(sleeps).toHaveLength(3);
  });

  it('a socket closed after a POST was sent is never retried', async () => {
    const s = await server((req) => void req.socket.destroy());
    const { api, sleeps } = client(s.url);
    const error = (await api.post('/cloud/v1/x', { a: 1 }).catch((e: unknown) => e)) as ApiConnectionError;
    expect(error).toBeInstanceOf(ApiConnectionError);
    expect(error.requestSent).toBe('unknown');
    expect(error.message).toContain('not safe to send twice');
    expect(s.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('a socket closed on a GET is retried', async () => {
    let n = 0;
    const s = await server((req, res) => void (++n === 1 ? req.socket.destroy() : sendJson(res, 200, { ok: 1 })));
    const { api, sleeps } = client(s.url);
    expect((await api.get('/x')).body).toEqual({ ok: 1 });
    expect(sleeps).toHaveLength(1);
  });

  it('a headers timeout says the request was sent, and a POST is not repeated', async () => {
    const s = await server(() => undefined);
    const { api } = client(s.url, { timeouts: { headersMs: 100 } });
    const error = (await api.post('/cloud/v1/x', {}).catch((e: unknown) => e)) as ApiTimeoutError;
    expect(error).toBeInstanceOf(ApiTimeoutError);
    expect(error.phase).toBe('headers');
    expect(error.requestSent).toBe(true);
    expect(error.timeoutMs).toBe(100);
    expect(s.requests).toHaveLength(1);
  });

  it('the whole-request timeout is reported as such', async () => {
    const s = await server(() => undefined);
    const { api } = client(s.url);
    const error = (await api.get('/x', { timeoutMs: 80, retry: 'never-reached-only' }).catch((e: unknown) => e)) as ApiTimeoutError;
    expect(error).toBeInstanceOf(ApiTimeoutError);
    expect(error.phase).toBe('request');
    expect(error.requestSent).toBe('unknown');
  });
});

describe('cancellation', () => {
  it('rejects with the caller’s abort reason, unwrapped', async () => {
    const s = await server(() => undefined);
    const { api } = client(s.url);
    const controller = new AbortController();
    const reason = new Error('interrupted by user');
    setTimeout(() => controller.abort(reason), 30);
    await expect(api.get('/x', { signal: controller.signal })).rejects.toBe(reason);
  });

  it('stops waiting between retries when aborted', async () => {
    const s = await server((_req, res) => sendJson(res, 503, {}));
    const controller = new AbortController();
    const reason = new Error('stop');
    const api = createApiClient({
      baseUrl: s.url,
      apiKey: KEY,
      sleep: async (_ms, signal) => {
        controller.abort(reason);
        if (signal?.aborted) throw signal.reason;
      },
    });
    defer(() => api.close());
    await expect(api.get('/x', { signal: controller.signal })).rejects.toBe(reason);
    expect(s.requests).toHaveLength(1);
  });

  it('does not send anything when already aborted', async () => {
    const s = await server((_req, res) => sendJson(res, 200, {}));
    const { api } = client(s.url);
    await expect(api.get('/x', { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
    expect(s.requests).toHaveLength(0);
  });
});

describe('request slots (--parallelism)', () => {
  /** A server that answers nothing until the test lets a request go: `held` are the requests waiting. */
  async function holdingServer() {
    const held: Array<{ url: string; answer: (status?: number) => void }> = [];
    let maxHeld = 0;
    const s = await server((req, res) => {
      held.push({ url: req.url, answer: (status = 200) => sendJson(res, status, { url: req.url }) });
      maxHeld = Math.max(maxHeld, held.length);
    });
    const next = async (status?: number) => {
      await waitFor(() => held.length > 0, { what: 'a held request' });
      held.shift()!.answer(status);
    };
    return { s, held, next, maxHeld: () => maxHeld };
  }

  it('never has more requests on the wire than maxConcurrentRequests, and does reach that many', async () => {
    const h = await holdingServer();
    const { api } = client(h.s.url, { maxConcurrentRequests: 3 });
    const all = Promise.all(Array.from({ length: 8 }, (_, i) => api.get(`/cloud/v1/x/${i}`)));
    await waitFor(() => h.held.length === 3, { what: 'three requests on the wire' });
    for (let i = 0; i < 8; i++) await h.next();
    await all;
    expect(h.maxHeld()).toBe(3);
    expect(h.s.requests).toHaveLength(8);
  });

  it('sends urgent requests (task polls) ahead of those waiting for a slot', async () => {
    const h = await holdingServer();
    const { api } = client(h.s.url, { maxConcurrentRequests: 1 });
    const first = api.get('/cloud/v1/first');
    await waitFor(() => h.held.length === 1, { what: 'the first request' });
    const rest = [api.get('/cloud/v1/read-1'), api.get('/cloud/v1/read-2'), api.get('/cloud/v1/tasks', { urgent: true })];
    for (let i = 0; i < 4; i++) await h.next();
    await Promise.all([first, ...rest]);
    expect(h.s.requests.map((r) => r.url)).toEqual(['/cloud/v1/first', '/cloud/v1/tasks', '/cloud/v1/read-1', '/cloud/v1/read-2']);
  });

  it('frees the slot while a request waits to be retried', async () => {
    const h = await holdingServer();
    let letRetry = () => {};
    const retryWait = new Promise<void>((resolve) => (letRetry = resolve));
    const { api } = client(h.s.url, { maxConcurrentRequests: 1, sleep: () => retryWait });
    const retried = api.get('/cloud/v1/busy');
    await h.next(503);
    // The 503's retry waits on `retryWait`; another request gets the only slot meanwhile.
    const other = api.get('/cloud/v1/other');
    await h.next();
    expect((await other).body).toEqual({ url: '/cloud/v1/other' });
    letRetry();
    await h.next();
    expect((await retried).body).toEqual({ url: '/cloud/v1/busy' });
    expect(h.s.requests.map((r) => r.url)).toEqual(['/cloud/v1/busy', '/cloud/v1/other', '/cloud/v1/busy']);
  });

  it('never sends a request whose signal aborted while it waited for a slot', async () => {
    const h = await holdingServer();
    const { api } = client(h.s.url, { maxConcurrentRequests: 1 });
    const first = api.get('/cloud/v1/first');
    await waitFor(() => h.held.length === 1, { what: 'the first request' });
    const controller = new AbortController();
    const queued = api.get('/cloud/v1/queued', { signal: controller.signal }).catch((e: unknown) => e);
    const reason = new Error('interrupted');
    controller.abort(reason);
    await h.next();
    await first;
    expect(await queued).toBe(reason);
    expect(h.s.requests.map((r) => r.url)).toEqual(['/cloud/v1/first']);
  });
});
