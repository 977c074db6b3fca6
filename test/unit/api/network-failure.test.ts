import { errors } from 'undici';
import { describe, expect, it } from 'vitest';
import { classifyNetworkError, isUnreachable } from '../../../src/api/network-failure.js';

const sysError = (code: string, syscall?: string) => Object.assign(new Error(`${syscall ?? 'read'} ${code}`), { code, ...(syscall ? { syscall } : {}) });

describe('classifyNetworkError', () => {
  it('connection refused proves the request never left', () => {
    expect(classifyNetworkError(sysError('ECONNREFUSED', 'connect'))).toEqual({ timeoutPhase: null, requestSent: false, transient: true, reason: 'ECONNREFUSED' });
  });

  it('looks inside an AggregateError (happy eyeballs) for the code', () => {
    const agg = new AggregateError([sysError('ECONNREFUSED', 'connect'), sysError('ECONNREFUSED', 'connect')], '');
    expect(classifyNetworkError(agg)).toMatchObject({ requestSent: false, transient: true, reason: 'ECONNREFUSED' });
  });

  it('DNS failures prove the request never left', () => {
    expect(classifyNetworkError(sysError('ENOTFOUND', 'getaddrinfo'))).toMatchObject({ requestSent: false, transient: true });
    expect(classifyNetworkError(sysError('EAI_AGAIN', 'getaddrinfo'))).toMatchObject({ requestSent: false, transient: true });
  });

  it('a connect timeout proves the request never left', () => {
    expect(classifyNetworkError(new errors.ConnectTimeoutError())).toEqual({
      timeoutPhase: 'connect',
      requestSent: false,
      transient: true,
      reason: 'UND_ERR_CONNECT_TIMEOUT',
    });
  });

  it('headers and body timeouts mean the request was sent', () => {
    expect(classifyNetworkError(new errors.HeadersTimeoutError())).toMatchObject({ timeoutPhase: 'headers', requestSent: true, transient: true });
    expect(classifyNetworkError(new errors.BodyTimeoutError())).toMatchObject({ timeoutPhase: 'body', requestSent: true, transient: true });
  });

  it('a reset or closed socket leaves it unknown', () => {
    expect(classifyNetworkError(new errors.SocketError('other side closed'))).toMatchObject({ requestSent: 'unknown', transient: true, reason: 'UND_ERR_SOCKET' });
    expect(classifyNetworkError(sysError('ECONNRESET'))).toMatchObject({ requestSent: 'unknown', transient: true });
    expect(classifyNetworkError(sysError('EPIPE', 'write'))).toMatchObject({ requestSent: 'unknown', transient: true });
  });

  it('an ETIMEDOUT while connecting proves nothing was sent; elsewhere it is unknown', () => {
    expect(classifyNetworkError(sysError('ETIMEDOUT', 'connect'))).toMatchObject({ requestSent: false });
    expect(classifyNetworkError(sysError('ETIMEDOUT', 'read'))).toMatchObject({ requestSent: 'unknown' });
  });

  it('TLS certificate failures are permanent', () => {
    expect(classifyNetworkError(sysError('CERT_HAS_EXPIRED'))).toMatchObject({ requestSent: false, transient: false });
    expect(classifyNetworkError(sysError('ERR_TLS_CERT_ALTNAME_INVALID'))).toMatchObject({ requestSent: false, transient: false });
    expect(classifyNetworkError(sysError('DEPTH_ZERO_SELF_SIGNED_CERT'))).toMatchObject({ transient: false });
  });

  it('requests undici refuses to send are permanent and never sent', () => {
    expect(classifyNetworkError(new errors.InvalidArgumentError('invalid header'))).toMatchObject({ requestSent: false, transient: false });
    expect(classifyNetworkError(new errors.ClientClosedError())).toMatchObject({ requestSent: false, transient: false });
  });

  it('anything unknown is not retried and not assumed unsent', () => {
    expect(classifyNetworkError(new Error('weird'))).toEqual({ timeoutPhase: null, requestSent: 'unknown', transient: false, reason: 'Error' });
    expect(classifyNetworkError('a string')).toMatchObject({ requestSent: 'unknown', transient: false, reason: 'unknown' });
  });
});

describe('isUnreachable', () => {
  it('is true when no connection to the platform could be made: refused, DNS, unreachable host, connect timeout, TLS', () => {
    for (const error of [
      sysError('ECONNREFUSED', 'connect'),
      sysError('ENOTFOUND', 'getaddrinfo'),
      sysError('EHOSTUNREACH', 'connect'),
      sysError('ETIMEDOUT', 'connect'),
      new errors.ConnectTimeoutError(),
      sysError('CERT_HAS_EXPIRED'),
    ]) {
      expect(isUnreachable(classifyNetworkError(error))).toBe(true);
    }
  });

  it('is false for a connection that broke mid-exchange, a timeout after sending, or a request undici refused to send', () => {
    for (const error of [
      sysError('ECONNRESET'),
      new errors.SocketError('other side closed'),
      new errors.HeadersTimeoutError(),
      new errors.InvalidArgumentError('bad'),
      new errors.ClientClosedError(),
      new Error('weird'),
    ]) {
      expect(isUnreachable(classifyNetworkError(error))).toBe(false);
    }
  });
});
