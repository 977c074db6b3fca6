/**
 * The API key never leaves the client in an error, whatever fails: the platform echoing it,
 * the connection failing in each way, or a dependency refusing the request.
 */
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClientOptions } from '../../../src/api/client.js';
import { ApiConnectionError, ApiTimeoutError, AuthenticationError, InternalServerError } from '../../../src/api/errors.js';
import { closedPort, sendJson, startLoopbackServer } from '../../helpers/loopback-server.js';

const KEY = '29841$c767b250/9f+e7$d1 x';
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

function expectKeyNowhere(error: unknown): void {
  expect(error).toBeInstanceOf(Error);
  const e = error as Error;
  const renderings = [String(e), e.stack ?? '', JSON.stringify(e), inspect(e, { depth: 10 }), inspect(e, { depth: 10, showHidden: true })];
  for (const text of renderings) {
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(encodeURIComponent(KEY));
    expect(text).not.toContain('c767b250');
  }
}

function makeClient(baseUrl: string, apiKey = KEY, extra: Partial<ApiClientOptions> = {}) {
  const api = createApiClient({ baseUrl, apiKey, sleep: async () => undefined, ...extra });
  cleanups.push(() => api.close());
  return api;
}

async function echoServer(handler: Parameters<typeof startLoopbackServer>[0]) {
  const s = await startLoopbackServer(handler);
  cleanups.push(() => s.close());
  return s;
}

describe('API key redaction', () => {
  it('a 401 whose body, message and request id echo the key', async () => {
    const s = await echoServer((req, res) =>
      sendJson(res, 401, { message: `Bad permanent token: ${req.headers.authorization}`, errors: { token: [KEY] }, request_id: KEY }, { 'x-request-id': encodeURIComponent(KEY) }),
    );
    const error = await makeClient(s.url)
      .get('/iam/users/me')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).platformMessage).toContain('[REDACTED]');
    expectKeyNowhere(error);
  });

  it('a text/plain 503 echoing the Authorization header, after retries', async () => {
    const s = await echoServer((req, res) => {
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end(`upstream rejected ${req.headers.authorization}`);
    });
    const error = await makeClient(s.url)
      .get('/fastedge/v1/apps/1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expectKeyNowhere(error);
  });

  it('connection refused', async () => {
    const error = await makeClient(await closedPort())
      .get('/cloud/v1/x')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiConnectionError);
    expectKeyNowhere(error);
  });

  it('a connection reset after a POST was sent', async () => {
    const s = await echoServer((req) => void req.socket.destroy());
    const error = await makeClient(s.url)
      .post('/cloud/v1/x', { note: 'x' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiConnectionError);
    expectKeyNowhere(error);
  });

  it('a headers timeout and a whole-request timeout', async () => {
    const s = await echoServer(() => undefined);
    const headers = await makeClient(s.url, KEY, { timeouts: { headersMs: 50 } })
      .post('/cloud/v1/x', {})
      .catch((e: unknown) => e);
    expect(headers).toBeInstanceOf(ApiTimeoutError);
    expectKeyNowhere(headers);
    const whole = await makeClient(s.url)
      .post('/cloud/v1/x', {}, { timeoutMs: 50 })
      .catch((e: unknown) => e);
    expect(whole).toBeInstanceOf(ApiTimeoutError);
    expectKeyNowhere(whole);
  });

  it('a request undici refuses to send (a key a header cannot carry)', async () => {
    const s = await echoServer((_req, res) => sendJson(res, 200, {}));
    const badKey = `${KEY}\r\nx-injected: 1`;
    const error = await makeClient(s.url, badKey)
      .get('/cloud/v1/x')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    const e = error as Error;
    for (const text of [String(e), e.stack ?? '', JSON.stringify(e), inspect(e, { depth: 10, showHidden: true })]) {
      expect(text).not.toContain('c767b250');
    }
    expect(s.requests).toHaveLength(0);
  });
});
