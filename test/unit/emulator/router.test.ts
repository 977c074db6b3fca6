import { describe, expect, it } from 'vitest';
import { CONTROL_PRODUCT, jsonReply } from '../../../src/emulator/reply.js';
import { Router, type RouteDefinition } from '../../../src/emulator/router.js';

const route = (method: string, pattern: string): RouteDefinition => ({ method, pattern, product: CONTROL_PRODUCT, handler: () => jsonReply(200, pattern) });

function found(router: Router, method: string, path: string): { pattern: string; params: Record<string, string> } {
  const match = router.match(method, path);
  if (match.kind !== 'found') throw new Error(`${method} ${path}: ${match.kind}`);
  return { pattern: match.route.pattern, params: match.params };
}

describe('emulator router', () => {
  it('routes parameters named differently at one position, each under its own route’s names', () => {
    const router = new Router();
    router.add(route('GET', '/dns/v2/zones/{name}'));
    router.add(route('PUT', '/dns/v2/zones/{name}'));
    router.add(route('PATCH', '/dns/v2/zones/{name}/enable'));
    router.add(route('GET', '/dns/v2/zones/{zoneName}/rrsets'));
    router.add(route('GET', '/dns/v2/zones/{zoneName}/{rrsetName}/{rrsetType}'));
    router.add(route('DELETE', '/dns/v2/zones/{zone}/{rrsetName}/{rrsetType}'));
    expect(found(router, 'GET', '/dns/v2/zones/example.com')).toEqual({ pattern: '/dns/v2/zones/{name}', params: { name: 'example.com' } });
    expect(found(router, 'PATCH', '/dns/v2/zones/example.com/enable').params).toEqual({ name: 'example.com' });
    expect(found(router, 'GET', '/dns/v2/zones/example.com/rrsets').params).toEqual({ zoneName: 'example.com' });
    expect(found(router, 'GET', '/dns/v2/zones/example.com/www.example.com/A').params).toEqual({ zoneName: 'example.com', rrsetName: 'www.example.com', rrsetType: 'A' });
    // Two methods at one node may name its parameters differently.
    expect(found(router, 'DELETE', '/dns/v2/zones/example.com/www/A').params).toEqual({ zone: 'example.com', rrsetName: 'www', rrsetType: 'A' });
  });

  it('prefers a static segment and falls back to a parameter when the static branch leads nowhere', () => {
    const router = new Router();
    router.add(route('GET', '/a/{x}/c'));
    router.add(route('GET', '/a/b/d'));
    expect(found(router, 'GET', '/a/b/d')).toEqual({ pattern: '/a/b/d', params: {} });
    expect(found(router, 'GET', '/a/b/c')).toEqual({ pattern: '/a/{x}/c', params: { x: 'b' } });
    expect(router.match('GET', '/a/b/e').kind).toBe('not-found');
  });

  it('decodes segments, answers 405 with the methods allowed, and refuses duplicates', () => {
    const router = new Router();
    router.add(route('GET', '/z/{name}'));
    router.add(route('PUT', '/z/{other}'));
    expect(found(router, 'GET', '/z/a%20b').params).toEqual({ name: 'a b' });
    expect(found(router, 'PUT', '/z/q').params).toEqual({ other: 'q' });
    expect(router.match('DELETE', '/z/q')).toMatchObject({ kind: 'method-not-allowed', allowed: ['GET', 'PUT'], pattern: '/z/{name}' });
    expect(() => router.add(route('GET', '/z/{third}'))).toThrow('duplicate route GET /z/{third}');
    expect(() => router.add(route('GET', '/y/{a}/{a}'))).toThrow('parameter {a} appears twice');
    expect(router.match('GET', '/z/%E0%A4%A').kind).toBe('not-found');
  });
});
