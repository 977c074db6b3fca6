import { describe, expect, it } from 'vitest';
import { resolveApiKey } from '../../../src/api/auth.js';
import { resolveBaseUrl } from '../../../src/api/base-url.js';
import { createApiClient } from '../../../src/api/client.js';
import { ApiConfigError } from '../../../src/api/errors.js';

/** A client configured the way every command does: base URL by resolveBaseUrl, key from EDGEFORM_API_KEY. */
const clientFromEnv = (env: NodeJS.ProcessEnv, stackBaseUrl?: string) => createApiClient({ baseUrl: resolveBaseUrl({ env, stackBaseUrl }), apiKey: resolveApiKey(env) });

describe('a client configured from the environment', () => {
  it('uses EDGEFORM_BASE_URL over the stack and normalises it', async () => {
    const api = clientFromEnv({ EDGEFORM_API_KEY: 'k$1', EDGEFORM_BASE_URL: 'http://127.0.0.1:9/prefix/' }, 'https://x.example.com');
    expect(api.baseUrl).toBe('http://127.0.0.1:9/prefix');
    await api.close();
  });

  it('asks for EDGEFORM_API_KEY when it is missing', () => {
    expect(() => clientFromEnv({})).toThrow(/set EDGEFORM_API_KEY/);
  });

  it('refuses plain http to a remote host even when given directly', () => {
    expect(() => createApiClient({ baseUrl: 'http://api.gcore.com', apiKey: 'k' })).toThrow(ApiConfigError);
  });

  it('redacts its key and extra secrets from any text', async () => {
    const api = createApiClient({ baseUrl: 'https://api.gcore.com', apiKey: '42$secretkey', secrets: ['other-secret'] });
    expect(api.redact('42$secretkey and other-secret and 42%24secretkey')).toBe('[REDACTED] and [REDACTED] and [REDACTED]');
    await api.close();
  });
});
