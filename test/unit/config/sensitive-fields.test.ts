import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadStack } from '../../../src/config/load-stack.js';
import { sensitiveValues } from '../../../src/config/sensitive-fields.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const ENV = { S3_KEY_ID: 'EXAMPLEFODNN7EXAMPLE', S3_SECRET: SECRET };

function group(s3: string): string {
  return `version: 1
resources:
  assets:
    type: cdn_origin_group
    name: assets
    origins:
      - source: origin.example.com
      - s3: { ${s3} }
`;
}

const VALID = 'type: amazon, bucket_name: b, region: eu-west-1, access_key_id: "${env:S3_KEY_ID}", secret_access_key: "${env:S3_SECRET}"';

async function load(text: string, env: Record<string, string> = ENV) {
  const dir = writeStackFiles({ 'stack.yaml': text });
  return loadStack(join(dir, 'stack.yaml'), env);
}

describe('sensitive fields (KindSpec.sensitive)', () => {
  it('keep the ${env:NAME} reference in the block, never the value, and mask it in code frames', async () => {
    const result = await load(group(VALID));
    expect(result.diagnostics).toEqual([]);
    const attributes = result.stack!.resources[0]!.attributes as { origins: Array<{ s3?: Record<string, unknown> }> };
    expect(attributes.origins[1]!.s3).toMatchObject({ access_key_id: '${env:S3_KEY_ID}', secret_access_key: '${env:S3_SECRET}' });
    expect(JSON.stringify(result.stack!.resources)).not.toContain(SECRET);
    const text = [...result.files.values()][0]!;
    expect(text).not.toContain('${env:S3_SECRET}');
    expect(text).toContain('secret_access_key: ******');
  });

  it('give the API client the values to redact', async () => {
    const result = await load(group(VALID));
    expect(sensitiveValues(result.stack!.resources, ENV).sort()).toEqual([ENV.S3_KEY_ID, SECRET].sort());
  });

  it('refuse a credential-looking key anywhere else, as before, even one a kind declares sensitive in another place', async () => {
    const result = await load(`version: 1
resources:
  assets:
    type: cdn_origin_group
    name: assets
    secret_access_key: \${env:S3_SECRET}
    origins:
      - { source: origin.example.com, secret_access_key: "\${env:S3_SECRET}" }
`);
    const summaries = result.diagnostics.map((d) => `${d.range!.start.line}: ${d.summary}`);
    expect(summaries).toEqual([
      '6: "secret_access_key" looks like a credential; a stack never holds secrets',
      '8: "secret_access_key" looks like a credential; a stack never holds secrets',
    ]);
  });

  it('refuse ${env:EDGEFORM_API_KEY} in a sensitive field', async () => {
    const result = await load(group(VALID.replace('S3_SECRET', 'EDGEFORM_API_KEY')), { ...ENV, EDGEFORM_API_KEY: '123$abcdefghijklmnopqrstuvwxyz' });
    expect(result.stack).toBeUndefined();
    expect(result.diagnostics.map((d) => d.code)).toContain('secret-in-stack');
    expect(result.diagnostics.map((d) => d.summary).join('\n')).toContain('${env:EDGEFORM_API_KEY} would put the API key into the stack');
  });

  it('check the S3 origin offline: the region of an amazon bucket, the hostname of another, unique buckets, a host or a bucket', async () => {
    const result = await load(`version: 1
resources:
  assets:
    type: cdn_origin_group
    name: assets
    origins:
      - s3: { type: amazon, bucket_name: b, access_key_id: "\${env:S3_KEY_ID}", secret_access_key: "\${env:S3_SECRET}" }
      - s3: { type: other, bucket_name: b, access_key_id: "\${env:S3_KEY_ID}", secret_access_key: "\${env:S3_SECRET}" }
      - { source: a.example.com, s3: { type: other, bucket_name: c, storage_hostname: s3.example.com, access_key_id: "\${env:S3_KEY_ID}", secret_access_key: "\${env:S3_SECRET}" } }
`);
    expect(result.diagnostics.map((d) => `${d.range!.start.line}: ${d.summary}`)).toEqual([
      '7: origins[0].s3.region: an amazon S3 origin needs its region',
      '8: origins[1].s3.storage_hostname: an S3 origin of type other needs its storage_hostname',
      '8: origins[1].s3.bucket_name: S3 bucket names must be unique within an origin group',
      '9: origins[2]: an origin is either a host (source) or an S3 bucket (s3), exactly one of them',
    ]);
  });
});
