import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CDN_OPTIONS_TARGETS, CDN_SPEC_FILE, generateCdnOptionsModule } from '../../../scripts/generate-cdn-options.mjs';
import { CDN_DEPRECATED_OPTIONS } from '../../../src/kinds/cdn-options-schema.js';

const root = new URL('../../../', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, root), 'utf8');

describe('the generated CDN options schemas', () => {
  it('are what scripts/generate-cdn-options.mjs writes from the committed spec (run npm run generate:cdn-options when this fails)', async () => {
    const expected = await generateCdnOptionsModule(read(CDN_SPEC_FILE));
    expect(CDN_OPTIONS_TARGETS).toEqual(['src/kinds/cdn-options-schema.ts', 'src/emulator/services/cdn/options-schema.ts']);
    for (const target of CDN_OPTIONS_TARGETS) expect(read(target), target).toBe(expected);
  });

  it('name the spec file and its info.version in their header', async () => {
    const text = read(CDN_OPTIONS_TARGETS[0]!);
    expect(text.split('\n')[1]).toBe(
      '// From test/fixtures/openapi/cdn_api.yaml, info.version 2026-05-15T06:37:28.230198+00:00: components.schemas.resource_options and rule_options.',
    );
  });

  it('follow the spec: a new option in the spec is a new option in the generated module', async () => {
    const spec = read(CDN_SPEC_FILE);
    // A copy of the spec with an option added by hand where resource_options lists its properties.
    const withOption = spec.replace(
      /(\n {4}resource_options: \{"type": "object", .*?"properties": \{)/,
      '$1"shiny_new_option": {"type": "object", "nullable": true, "properties": {"enabled": {"type": "boolean"}}, "required": ["enabled"]}, ',
    );
    expect(withOption).not.toBe(spec);
    const text = await generateCdnOptionsModule(withOption);
    expect(text).toContain('shiny_new_option: z.strictObject({ enabled: z.boolean() }).nullable()');
    expect(text).toMatch(/CDN_RESOURCE_OPTION_NAMES = \[\s*'shiny_new_option',/);
  });

  it('carry the options the spec marks deprecated, with the option its description says to use instead', async () => {
    expect(CDN_DEPRECATED_OPTIONS).toEqual({
      cache_http_headers: 'response_headers_hiding_policy',
      disable_cache: 'edge_cache_settings',
      staticHeaders: 'static_response_headers',
    });
    const spec = read(CDN_SPEC_FILE).replace('\n    gzipOn: {"type": "object", "nullable": true,', '\n    gzipOn: {"type": "object", "nullable": true, "deprecated": true,');
    const text = await generateCdnOptionsModule(spec);
    expect(text).toMatch(/CDN_DEPRECATED_OPTIONS: Readonly<Record<string, string \| null>> = \{[^}]*gzipOn: null,/);
  });

  it('refuse a keyword the generator does not know, instead of dropping a rule', async () => {
    const spec = read(CDN_SPEC_FILE).replace('\n    gzipOn: {"type": "object", "nullable": true,', '\n    gzipOn: {"type": "object", "nullable": true, "minProperties": 1,');
    await expect(generateCdnOptionsModule(spec)).rejects.toThrow('resource_options.gzipOn: the generator does not know the keyword "minProperties"');
  });
});
