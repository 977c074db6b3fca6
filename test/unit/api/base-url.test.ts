import { describe, expect, it } from 'vitest';
import { authorizationHeader, resolveApiKey } from '../../../src/api/auth.js';
import { canonicalOrigin, DEFAULT_BASE_URL, isLoopbackHost, resolveBaseUrl } from '../../../src/api/base-url.js';
import { ApiConfigError } from '../../../src/api/errors.js';

describe('resolveBaseUrl', () => {
  it('prefers EDGEFORM_BASE_URL, then the stack, then the public endpoint', () => {
    expect(resolveBaseUrl({ env: { EDGEFORM_BASE_URL: 'https://env.example.com' }, stackBaseUrl: 'https://stack.example.com' })).toBe('https://env.example.com');
    expect(resolveBaseUrl({ env: {}, stackBaseUrl: 'https://stack.example.com' })).toBe('https://stack.example.com');
    expect(resolveBaseUrl({ env: {} })).toBe('https://api.gcore.com');
    expect(DEFAULT_BASE_URL).toBe('https://api.gcore.com');
  });

  it('treats an empty variable as unset', () => {
    expect(resolveBaseUrl({ env: { EDGEFORM_BASE_URL: '  ' }, stackBaseUrl: 'https://stack.example.com' })).toBe('https://stack.example.com');
  });

  it('normalises trailing slashes and keeps a path prefix', () => {
    expect(resolveBaseUrl({ env: { EDGEFORM_BASE_URL: 'https://api.example.com/' } })).toBe('https://api.example.com');
    expect(resolveBaseUrl({ env: { EDGEFORM_BASE_URL: 'https://gw.example.com/edge/api//' } })).toBe('https://gw.example.com/edge/api');
    expect(resolveBaseUrl({ env: { EDGEFORM_BASE_URL: 'HTTPS://API.Example.COM:8443/x/' } })).toBe('https://api.example.com:8443/x');
  });

  it('refuses plain http to a non-loopback host, naming the source', () => {
    const attempt = () => resolveBaseUrl({ env: {}, stackBaseUrl: 'http://api.gcore.com' });
    expect(attempt).toThrow(ApiConfigError);
    expect(attempt).toThrow(/provider\.base_url uses plain http:\/\/ to api\.gcore\.com/);
    try {
      attempt();
    } catch (error) {
      expect((error as ApiConfigError).code).toBe('EDGEFORM_BASE_URL_INSECURE');
    }
  });

  it('allows plain http to loopback', () => {
    for (const url of ['http://127.0.0.1:8080', 'http://127.1.2.3', 'http://localhost:3000/', 'http://[::1]:9000', 'http://LOCALHOST']) {
      expect(() => resolveBaseUrl({ env: { EDGEFORM_BASE_URL: url } })).not.toThrow();
    }
    expect(resolveBaseUrl({ env: { EDGEFORM_BASE_URL: 'http://[::1]:9000/' } })).toBe('http://[::1]:9000');
  });

  it('does not mistake look-alike hosts for loopback', () => {
    for (const url of ['http://127.0.0.1.example.com', 'http://localhost.evil.com', 'http://128.0.0.1', 'http://[::2]', 'http://0.0.0.0']) {
      expect(() => resolveBaseUrl({ env: { EDGEFORM_BASE_URL: url } }), url).toThrow(/plain http/);
    }
  });

  it('refuses invalid URLs, other schemes, credentials, queries', () => {
    expect(() => resolveBaseUrl({ env: { EDGEFORM_BASE_URL: 'api.gcore.com' } })).toThrow(/EDGEFORM_BASE_URL is not a valid URL/);
    expect(() => resolveBaseUrl({ env: { EDGEFORM_BASE_URL: 'ftp://x.example.com' } })).toThrow(/must be an https:\/\/ URL/);
    expect(() => resolveBaseUrl({ env: { EDGEFORM_BASE_URL: 'https://u:p4ss@x.example.com' } })).toThrow(/must not contain credentials/);
    expect(() => resolveBaseUrl({ env: { EDGEFORM_BASE_URL: 'https://u:p4ss@x.example.com' } })).not.toThrow(/p4ss/);
    expect(() => resolveBaseUrl({ env: { EDGEFORM_BASE_URL: 'https://x.example.com/?a=1' } })).toThrow(/query or fragment/);
  });
});

describe('isLoopbackHost', () => {
  it('knows 127.0.0.0/8, localhost and ::1 in their URL spellings', () => {
    expect(['127.0.0.1', '127.255.255.254', 'localhost', 'localhost.', '[::1]', '::1', '[::ffff:7f00:1]', '[0:0:0:0:0:0:0:1]'].every(isLoopbackHost)).toBe(true);
    expect(['10.0.0.1', '[::]', 'example.com', '[::ffff:a00:1]', '1.127.0.0'].some(isLoopbackHost)).toBe(false);
  });
});

describe('resolveApiKey', () => {
  it('reads EDGEFORM_API_KEY', () => {
    expect(resolveApiKey({ EDGEFORM_API_KEY: '29841$c767b250' })).toBe('29841$c767b250');
    expect(authorizationHeader('k$1')).toBe('APIKey k$1');
  });

  it('asks to set EDGEFORM_API_KEY when missing or empty', () => {
    for (const env of [{}, { EDGEFORM_API_KEY: '' }, { EDGEFORM_API_KEY: '  ' }]) {
      expect(() => resolveApiKey(env)).toThrow(/set EDGEFORM_API_KEY/);
    }
  });

  it('refuses a key a header cannot carry, without printing it', () => {
    const key = 'abc$def\nghi';
    try {
      resolveApiKey({ EDGEFORM_API_KEY: key });
      expect.unreachable();
    } catch (error) {
      expect((error as ApiConfigError).code).toBe('EDGEFORM_API_KEY_INVALID');
      expect(String(error)).not.toContain('abc$def');
    }
  });
});

describe('canonicalOrigin', () => {
  /** Each group: spellings of one platform, which must give one key. */
  const SAME: string[][] = [
    [
      'http://127.0.0.1:8787',
      'http://localhost:8787',
      'http://LOCALHOST:8787/',
      'http://localhost.:8787',
      'http://[::1]:8787',
      'http://[0:0:0:0:0:0:0:1]:8787',
      'http://127.0.0.2:8787',
      'http://[::ffff:127.0.0.1]:8787',
      'http://0x7f.1:8787',
      'http://2130706433:8787//',
    ],
    ['https://api.gcore.com', 'https://api.gcore.com/', 'HTTPS://API.GCORE.COM:443', 'https://api.gcore.com.', 'https://api.gcore.com./', 'https://user:pass@api.gcore.com'],
    ['http://localhost', 'http://127.0.0.1:80', 'http://localhost:80/'],
    ['https://bücher.example/api', 'https://BÜCHER.example/api/', 'https://xn--bcher-kva.example/api', 'https://xn--bcher-kva.example:443/api//'],
    [
      'https://gw.example.com/edge/api',
      'https://gw.example.com/edge/./api/',
      'https://gw.example.com/edge/x/../api',
      'https://gw.example.com/%65dge/api',
      'https://gw.example.com/edge/api?x=1#y',
    ],
    ['https://gw.example.com/a%2fb', 'https://gw.example.com/a%2Fb/'],
  ];

  it.each(SAME.map((group) => [group[0]!, group]))('gives every spelling of %s one key', (_, group) => {
    const keys = new Set(group.map(canonicalOrigin));
    expect([...keys]).toHaveLength(1);
  });

  it('keeps apart what is another platform: scheme, host, port, path prefix and its case', () => {
    const different = [
      'http://localhost:8787',
      'https://localhost:8787',
      'http://localhost:8788',
      'https://api.gcore.com',
      'https://api.gcore.com:8443',
      'https://api.gcore.co',
      'https://eu.api.gcore.com',
      'https://gw.example.com/edge/api',
      'https://gw.example.com/edge/API',
      'https://gw.example.com/edge',
      'https://gw.example.com/a%2Fb',
      'https://gw.example.com/a/b',
    ];
    expect(new Set(different.map(canonicalOrigin)).size).toBe(different.length);
  });

  it('names the platform readably: scheme, host, a port other than the default, the path prefix', () => {
    expect(canonicalOrigin('http://127.0.0.1:8787/')).toBe('http://localhost:8787');
    expect(canonicalOrigin('HTTPS://API.GCORE.COM.:443/')).toBe('https://api.gcore.com');
    expect(canonicalOrigin('https://gw.example.com/Edge/%7eapi/')).toBe('https://gw.example.com/Edge/~api');
  });

  it('refuses what is not an http(s) URL without echoing it', () => {
    expect(() => canonicalOrigin('api.gcore.com')).toThrow(ApiConfigError);
    expect(() => canonicalOrigin('ftp://x.example.com')).toThrow(/must be http\(s\)/);
    expect(() => canonicalOrigin('not a url s3cr3t')).not.toThrow(/s3cr3t/);
  });
});
