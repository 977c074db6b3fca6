import { describe, expect, it } from 'vitest';
import { buildPath, defaultRetryMode } from '../../../src/api/client.js';
import { apiPath } from '../../../src/api/path.js';

describe('apiPath', () => {
  it('encodes each value as one segment', () => {
    expect(apiPath`/cloud/v2/k8s/clusters/${1}/${76}/${'prod eu/x?y'}/upgrade`).toBe('/cloud/v2/k8s/clusters/1/76/prod%20eu%2Fx%3Fy/upgrade');
  });

  it('refuses values that would change the resource named', () => {
    expect(() => apiPath`/streaming/players/${'..'}`).toThrow(/invalid path segment/);
    expect(() => apiPath`/streaming/players/${''}`).toThrow(/invalid path segment/);
  });
});

describe('buildPath', () => {
  it('prefixes the base path and repeats array query keys', () => {
    expect(buildPath('/gw', '/cloud/v1/tasks', { state: ['NEW', 'RUNNING'], limit: 10, skip: undefined, none: null, flag: true })).toBe(
      '/gw/cloud/v1/tasks?state=NEW&state=RUNNING&limit=10&flag=true',
    );
    expect(buildPath('', 'cloud/v1/x', {})).toBe('/cloud/v1/x');
    expect(buildPath('', '/x?a=1', { b: 'c d' })).toBe('/x?a=1&b=c+d');
  });
});

describe('defaultRetryMode', () => {
  it('treats reads and deletes as idempotent and POST/PATCH as task-starting', () => {
    expect(['GET', 'PUT', 'DELETE', 'POST', 'PATCH'].map((m) => defaultRetryMode(m as 'GET'))).toEqual([
      'idempotent',
      'idempotent',
      'idempotent',
      'never-reached-only',
      'never-reached-only',
    ]);
  });
});
