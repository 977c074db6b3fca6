/**
 * Where the platform is: `EDGEFORM_BASE_URL`, else the stack's `provider.base_url`, else the
 * public endpoint. Plain http is allowed only to loopback (the emulator), because the API key
 * travels in a header on every request.
 */
import { isIP } from 'node:net';
import { ApiConfigError } from './errors.js';

/** The platform's public API endpoint, used when nothing else is configured. */
export const DEFAULT_BASE_URL = 'https://api.gcore.com';

/** Name of the environment variable that overrides the stack's base URL. */
export const BASE_URL_ENV = 'EDGEFORM_BASE_URL';

/** Inputs of {@link resolveBaseUrl}. */
export interface ResolveBaseUrlInput {
  env: NodeJS.ProcessEnv;
  /** The stack's `provider.base_url`, if it has one. */
  stackBaseUrl?: string | null;
}

/**
 * The base URL to use, normalised: no trailing slash, no query or fragment; a path prefix
 * (e.g. a gateway mount point) is kept. Throws {@link ApiConfigError} for an invalid URL,
 * credentials in the URL, a scheme other than http(s), or http to a non-loopback host.
 */
export function resolveBaseUrl(input: ResolveBaseUrlInput): string {
  const fromEnv = input.env[BASE_URL_ENV]?.trim();
  const fromStack = input.stackBaseUrl?.trim();
  if (fromEnv) return normalizeBaseUrl(fromEnv, BASE_URL_ENV);
  if (fromStack) return normalizeBaseUrl(fromStack, 'provider.base_url');
  return DEFAULT_BASE_URL;
}

/** Validates and normalises one base URL; `source` names where it came from for the message. */
export function normalizeBaseUrl(raw: string, source: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ApiConfigError('EDGEFORM_BASE_URL_INVALID', `${source} is not a valid URL: "${raw}"`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ApiConfigError('EDGEFORM_BASE_URL_INVALID', `${source} must be an https:// URL, got "${url.protocol}//..."`);
  }
  if (url.username || url.password) {
    // Never echo the URL itself here: the credentials are the problem.
    throw new ApiConfigError('EDGEFORM_BASE_URL_INVALID', `${source} must not contain credentials; the API key comes only from EDGEFORM_API_KEY`);
  }
  if (url.search || url.hash) {
    throw new ApiConfigError('EDGEFORM_BASE_URL_INVALID', `${source} must not have a query or fragment: "${raw}"`);
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new ApiConfigError(
      'EDGEFORM_BASE_URL_INSECURE',
      `${source} uses plain http:// to ${url.hostname}; the API key would travel unencrypted. Use https://, or http:// only to a loopback host (127.0.0.1, localhost, [::1])`,
    );
  }
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.origin}${path}`;
}

/** What every loopback host name folds to in {@link canonicalOrigin}. */
const LOOPBACK = 'localhost';

/**
 * The platform a base URL names, as one string, whatever its spelling: what keys the locks of a
 * named stack (two checkouts applying through `http://127.0.0.1:8787` and `http://localhost:8787/`
 * talk to one platform, so they must take one lock). Folded: the scheme and host in lower case,
 * an IDN host as punycode, a fully qualified host's trailing dot, the scheme's default port, the
 * other spellings of an IPv4 or IPv6 address (`0x7f.1`, `[0:0::1]`), every loopback host (see
 * isLoopbackHost) to `localhost`; in the path, dot segments, the percent-encoding of characters
 * that need none (`%7E` is `~`), the case of the rest (`%2f` is `%2F`) and trailing slashes. A
 * path prefix stays (two gateways' mount points are two platforms), as does its case; credentials,
 * a query and a fragment are no part of it. Pure; throws ApiConfigError for what is not an
 * http(s) URL.
 */
export function canonicalOrigin(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    // Never echoed: it may hold credentials.
    throw new ApiConfigError('EDGEFORM_BASE_URL_INVALID', 'the base URL is not a valid URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ApiConfigError('EDGEFORM_BASE_URL_INVALID', `the base URL must be http(s), got "${url.protocol}//..."`);
  const host = isLoopbackHost(url.hostname) ? LOOPBACK : url.hostname.replace(/\.$/, '');
  const port = url.port === '' ? '' : `:${url.port}`;
  const path = url.pathname
    .replace(/%([0-9a-f]{2})/gi, (escape: string, hex: string) => {
      const char = String.fromCharCode(parseInt(hex, 16));
      return /[A-Za-z0-9\-._~]/.test(char) ? char : escape.toUpperCase();
    })
    .replace(/\/+$/, '');
  return `${url.protocol}//${host}${port}${path}`;
}

/**
 * Whether a URL hostname is loopback: `localhost`, 127.0.0.0/8 or ::1 (bracketed as in URLs,
 * also the IPv4-mapped form).
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) {
    if (host === '::1' || /^(0{1,4}:){7}0{0,3}1$/.test(host)) return true;
    const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
    if (mapped?.[1]) return parseInt(mapped[1], 16) >> 8 === 127;
    const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(host);
    return dotted?.[1] !== undefined && dotted[1].startsWith('127.');
  }
  return false;
}
