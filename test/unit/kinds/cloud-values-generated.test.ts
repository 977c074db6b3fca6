import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLOUD_SPEC_FILE, CLOUD_VALUES_TARGETS, generateCloudValuesModule } from '../../../scripts/generate-cloud-values.mjs';
import { GLOBAL_LIMIT_FIELDS, REGIONAL_LIMIT_FIELDS, SECURITY_GROUP_RULE_PROTOCOLS } from '../../../src/kinds/cloud-vendor-values.js';

const root = new URL('../../../', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, root), 'utf8');

describe('the generated cloud value lists (security group protocols, quota limit names)', () => {
  it('are what scripts/generate-cloud-values.mjs writes from the committed spec (run npm run generate:cloud-values when this fails)', async () => {
    const expected = await generateCloudValuesModule(read(CLOUD_SPEC_FILE));
    expect(CLOUD_VALUES_TARGETS).toEqual(['src/kinds/cloud-vendor-values.ts', 'src/emulator/cloud-vendor-values.ts']);
    for (const target of CLOUD_VALUES_TARGETS) expect(read(target), target).toBe(expected);
  });

  it('name the spec file and its info.version in their header', () => {
    expect(read(CLOUD_VALUES_TARGETS[0]!).split('\n')[1]).toMatch(/^\/\/ From test\/fixtures\/openapi\/cloud_api\.yaml, info\.version 2026-05-15T06:37:28\.230198\+00:00: /);
  });

  it('hold the vendor values the kinds and the emulator check against', () => {
    expect(SECURITY_GROUP_RULE_PROTOCOLS).toHaveLength(23);
    expect(SECURITY_GROUP_RULE_PROTOCOLS).toContain('tcp');
    expect(SECURITY_GROUP_RULE_PROTOCOLS).not.toContain('any');
    expect(GLOBAL_LIMIT_FIELDS).toContain('keypair_count_limit');
    expect(REGIONAL_LIMIT_FIELDS).toHaveLength(51);
    expect(REGIONAL_LIMIT_FIELDS).not.toContain('region_id');
  });

  // A small spec in the vendor file's form (JSON-style YAML), so these tests do not parse the 2.3 MB file again.
  const smallSpec = (protocols: readonly string[], globalLimits: readonly string[], enumName = 'SecurityGroupProtocolEnumV2'): string =>
    [
      'info: {"version": "test"}',
      'components:',
      '  schemas:',
      `    ${enumName}: {"enum": ${JSON.stringify(protocols)}, "type": "string"}`,
      `    CreateGlobalQuotasLimitsSerializer: {"properties": {${globalLimits.map((l) => `"${l}": {"type": "integer"}`).join(', ')}}, "type": "object"}`,
      '    RegionalQuotasLimitsSerializer: {"properties": {"region_id": {"type": "integer"}, "cpu_count_limit": {"type": "integer"}}, "type": "object"}',
    ].join('\n');

  it('follow the spec: a new protocol or limit in the spec is a new value in the generated module', async () => {
    const before = await generateCloudValuesModule(smallSpec(['ah', 'tcp'], ['keypair_count_limit']));
    const after = await generateCloudValuesModule(smallSpec(['ah', 'carp', 'tcp'], ['shiny_new_count_limit', 'keypair_count_limit']));
    expect(before).not.toContain('carp');
    expect(after).toMatch(/SECURITY_GROUP_RULE_PROTOCOLS = \['ah', 'carp', 'tcp'\]/);
    expect(after).toMatch(/GLOBAL_LIMIT_FIELDS = \['shiny_new_count_limit', 'keypair_count_limit'\]/);
    expect(after).toMatch(/REGIONAL_LIMIT_FIELDS = \['cpu_count_limit'\]/);
  });

  it('refuse a spec that lacks a component, instead of writing an empty list', async () => {
    await expect(generateCloudValuesModule(smallSpec(['tcp'], [], 'SecurityGroupProtocolEnumV9'))).rejects.toThrow('components.schemas.SecurityGroupProtocolEnumV2 has no enum');
  });
});
