import { describe, expect, it } from 'vitest';
import { createApiClient, createApiClientFromEnv } from '../../../src/api/client.js';
import { ApiConfigError } from '../../../src/api/errors.js';

describe('createApiClientFromEnv', () => {
  it('uses EDGEFORM_BASE_URL over the stack and normalises it', async () => {
    const api = createApiClientFromEnv({ env: { EDGEFORM_API_KEY: 'k$1', EDGEFORM_BASE_URL: 'http://127.0.0.1:9/prefix/' }, stackBaseUrl: 'https://x.example.com' });
    expect(api.baseUrl).toBe('http://127.0.0.1:9/prefix');
    await api.close();
  });

  it('asks for EDGEFORM_API_KEY when it is missing', () => {
    expect(() => createApiClientFromEnv({ env: {} })).toThrow(/set EDGEFORM_API_KEY/);
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
