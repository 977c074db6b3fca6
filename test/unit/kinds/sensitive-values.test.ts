import { describe, expect, it } from 'vitest';
import { PlanPayloadError } from '../../../src/errors.js';
import { withSensitiveValues } from '../../../src/kinds/lifecycle.js';
import type { ProviderContext } from '../../../src/kinds/provider.js';

const env: Record<string, string> = { S3_SECRET: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };
const ctx = { sensitive: (name: string) => env[name] } as ProviderContext;
const change = (path: (string | number)[], name = 'S3_SECRET') => ({ address: 'cdn_origin_group.x', action: 'create' as const, sensitive: [{ path, env: name }] });
const payload = { body: { name: 'x', sources: [{ source: 'a.example.com' }, { origin_type: 's3', config: { s3_secret_access_key: '${env:S3_SECRET}' } }] } };

describe('withSensitiveValues', () => {
  it('writes each variable into the place its reference holds, leaving the planned payload as it was', () => {
    const sent = withSensitiveValues(ctx, change(['body', 'sources', 1, 'config', 's3_secret_access_key']), payload);
    expect(sent.body.sources[1]).toEqual({ origin_type: 's3', config: { s3_secret_access_key: env.S3_SECRET } });
    expect(payload.body.sources[1]).toEqual({ origin_type: 's3', config: { s3_secret_access_key: '${env:S3_SECRET}' } });
  });

  it('refuses a place that does not hold the reference the plan names (an edited plan), before anything is sent', () => {
    expect(() => withSensitiveValues(ctx, change(['body', 'name']), payload)).toThrow(PlanPayloadError);
    expect(() => withSensitiveValues(ctx, change(['body', 'sources', 1, 'config', 's3_secret_access_key'], 'OTHER'), payload)).toThrow(
      /does not hold the reference \$\{env:OTHER\}/,
    );
  });

  it('refuses an unset variable, naming it', () => {
    const unset = { sensitive: () => undefined } as unknown as ProviderContext;
    expect(() => withSensitiveValues(unset, change(['body', 'sources', 1, 'config', 's3_secret_access_key']), payload)).toThrow(/the environment variable S3_SECRET is not set/);
  });
});
