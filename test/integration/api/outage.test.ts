/**
 * The run's outage breaker against real loopback servers: a platform that is down is decided
 * once for the whole run (the first refused connection, an unresolvable host, or the outage
 * budget of nothing but 5xx), while a platform that is up keeps its ordinary retries. Counts of
 * connections, attempts and the waits the client asked for, never wall-clock time: the clock and
 * the sleep are injected, the sleep moving the clock.
 */
import { describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient, type ApiClientOptions, type ExchangeEvent } from '../../../src/api/client.js';
import { ApiConnectionError, InternalServerError, toRunFatalError, PlatformUnavailableError } from '../../../src/api/errors.js';
import { createOutageBreaker, createRetryQuota, type OutageBreaker } from '../../../src/api/retry.js';
import { closedPort, loopbackTestScope, sendJson } from '../../helpers/loopback-server.js';

const KEY = '29841$c767b250$abc';
const { server, defer } = loopbackTestScope();

/** A client with a shared breaker on a manual clock that only its sleeps move (random 0: the shortest backoff). */
function client(baseUrl: string, extra: Partial<ApiClientOptions> = {}): { api: ApiClient; breaker: OutageBreaker; sleeps: number[]; attempts: ExchangeEvent[] } {
  let clock = 0;
  const sleeps: number[] = [];
  const attempts: ExchangeEvent[] = [];
  const breaker = createOutageBreaker({ now: () => clock });
  const api = createApiClient({
    baseUrl,
    apiKey: KEY,
    retryQuota: createRetryQuota(),
    outage: breaker,
    sleep: async (ms, signal) => {
      signal?.throwIfAborted();
      sleeps.push(ms);
      clock += ms;
    },
    now: () => clock,
    random: () => 0,
    onExchange: (event) => attempts.push(event),
    ...extra,
  });
  defer(() => api.close());
  return { api, breaker, sleeps, attempts };
}

const READS = Array.from({ length: 9 }, (_, i) => `/cloud/v1/floatingips/1/76/ip-${i}`);

describe('a platform that is down', () => {
  it('connection refused: the first refused connection stops the run, nothing is retried, later requests send nothing', async () => {
    const url = await closedPort();
    const { api, breaker, sleeps, attempts } = client(url);
    const errors = await Promise.all(READS.map((path) => api.get(path).catch((e: unknown) => e)));
    // Nine reads in flight at once: each tried once, none retried.
    expect(attempts.length).toBeLessThanOrEqual(READS.length);
    expect(sleeps).toEqual([]);
    expect(breaker.tripped).toBeInstanceOf(ApiConnectionError);
    for (const error of errors) {
      expect(error).toBeInstanceOf(ApiConnectionError);
      expect(error).toMatchObject({ platformDown: true, requestSent: false, reason: 'ECONNREFUSED' });
    }
    expect((errors[0] as Error).message).toMatch(/connection failed \(.*ECONNREFUSED.*\); the request never reached the platform; not retried: nothing accepts connections there$/);
    // A request after the verdict is not even sent.
    const before = attempts.length;
    await expect(api.post('/cloud/v1/floatingips/1/76', {})).rejects.toBe(breaker.tripped);
    expect(attempts.length).toBe(before);
    // The run-fatal error names the platform, whatever the request's retry mode (task polls too).
    const fatal = toRunFatalError(errors[0], { baseUrl: url, singleAttempt: true });
    expect(fatal).toBeInstanceOf(PlatformUnavailableError);
    expect(fatal?.message).toMatch(new RegExp(`^the platform at ${url} is unavailable: GET /cloud/v1/floatingips/1/76/ip-\\d: connection failed`));
  });

  it('a task poll (retry mode none) refused: decisive too', async () => {
    const { api, breaker } = client(await closedPort());
    const error = await api.get('/cloud/v1/tasks/t-1', { retry: 'none' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ platformDown: true });
    expect(breaker.tripped).toBe(error);
  });

  it('a host name that does not resolve (.invalid, RFC 6761): decisive, not retried', async () => {
    const { api, sleeps, attempts } = client('https://edgeform-outage-test.invalid');
    const error = (await api.get('/cloud/v1/floatingips/1/76').catch((e: unknown) => e)) as ApiConnectionError;
    expect(error).toBeInstanceOf(ApiConnectionError);
    expect(error).toMatchObject({ platformDown: true, requestSent: false, reason: 'ENOTFOUND' });
    expect(error.message).toMatch(/not retried: the host name does not resolve$/);
    expect(attempts).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('every request 503: one request stops once its retries would pass the 3 s outage budget', async () => {
    const s = await server((_req, res) => sendJson(res, 503, { message: 'down' }));
    const { api, sleeps } = client(s.url);
    const error = (await api.get('/cloud/v1/floatingips/1/76').catch((e: unknown) => e)) as InternalServerError;
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error.platformDown).toBe(true);
    // Backoff 250, 500, 1000 ms (random 0): the next wait, 2000 ms at 1.75 s, would end past 3 s.
    expect(sleeps).toEqual([250, 500, 1000]);
    expect(s.requests).toHaveLength(4);
    expect(error.message).toMatch(/503 Service Unavailable: down; every request failed for 1\.8 s \(4 attempts, none succeeded\): not retried further$/);
  });

  it('every request 503 with nine reads at once: the run-wide budget, not nine per-request schedules', async () => {
    const s = await server((_req, res) => sendJson(res, 503, { message: 'down' }));
    const { api, breaker } = client(s.url);
    const errors = await Promise.all(READS.map((path) => api.get(path).catch((e: unknown) => e)));
    expect(breaker.tripped).toBeInstanceOf(InternalServerError);
    for (const error of errors) expect(error).toMatchObject({ platformDown: true });
    // Without the breaker: 9 × 6 attempts. With it, at most 3 rounds of 9 before the budget runs out.
    expect(s.requests.length).toBeLessThanOrEqual(27);
  });
});

describe('a platform that is up', () => {
  it('a single 503 is retried and succeeds; the breaker stays closed', async () => {
    let n = 0;
    const s = await server((_req, res) => (++n === 1 ? sendJson(res, 503, { message: 'blip' }, { 'retry-after': '4' }) : sendJson(res, 200, {})));
    const { api, breaker, sleeps } = client(s.url);
    await expect(api.get('/a')).resolves.toMatchObject({ status: 200 });
    expect(sleeps).toEqual([4000]);
    expect(breaker.tripped).toBeNull();
  });

  it('a 503 on every other request never adds up to an outage: each success ends the streak', async () => {
    let n = 0;
    const s = await server((_req, res) => (++n % 2 === 1 ? sendJson(res, 503, { message: 'blip' }) : sendJson(res, 200, {})));
    const { api, breaker } = client(s.url);
    for (let i = 0; i < 20; i++) await api.get(`/r/${i}`);
    expect(s.requests).toHaveLength(40);
    expect(breaker.tripped).toBeNull();
  });

  it('429s prove the platform is up: retried as before, never counted as an outage', async () => {
    let n = 0;
    const s = await server((_req, res) => (++n <= 5 ? sendJson(res, 429, { message: 'slow down' }, { 'retry-after': '2' }) : sendJson(res, 200, {})));
    const { api, breaker, sleeps } = client(s.url);
    await expect(api.get('/a')).resolves.toMatchObject({ status: 200 });
    expect(sleeps).toEqual([2000, 2000, 2000, 2000, 2000]);
    expect(breaker.tripped).toBeNull();
  });
});
