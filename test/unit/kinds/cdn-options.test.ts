import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import {
  knownOptions,
  CDN_RESOURCE_OPTION_NAMES,
  CDN_RULE_OPTION_NAMES,
  CDN_DEPRECATED_OPTIONS,
  cdnOptionNames,
  declaredOptionsDiff,
  deprecatedOptionWarnings,
  projectDeclaredOptions,
  validateCdnOptions,
} from '../../../src/kinds/cdn-options.js';

type JsonSchema = Record<string, unknown>;
const spec = load(readFileSync(new URL('../../fixtures/openapi/cdn_api.yaml', import.meta.url), 'utf8')) as { components: { schemas: Record<string, JsonSchema> } };
const schemas = spec.components.schemas;

/** The schema a node means: a $ref followed, allOf parts merged (properties and required together). */
function resolve(node: JsonSchema): JsonSchema {
  if (typeof node.$ref === 'string') return resolve(schemas[node.$ref.split('/').pop()!]!);
  if (!Array.isArray(node.allOf)) return node;
  const merged: JsonSchema = { ...node, allOf: undefined };
  for (const part of (node.allOf as JsonSchema[]).map(resolve)) {
    for (const [key, value] of Object.entries(part)) {
      if (key === 'properties') merged.properties = { ...(merged.properties as object), ...(value as object) };
      else if (key === 'required') merged.required = [...((merged.required as string[]) ?? []), ...(value as string[])];
      else merged[key] ??= value;
    }
  }
  return merged;
}

/** Values valid by the spec's JSON Schema (not by the generated zod): what the generated schemas must accept. */
function arbitraryOf(raw: JsonSchema): fc.Arbitrary<unknown> {
  const node = resolve(raw);
  let arb: fc.Arbitrary<unknown>;
  const type = node.type ?? (node.properties ? 'object' : undefined);
  if (Array.isArray(node.enum)) arb = fc.constantFrom(...(node.enum as unknown[]));
  else if (type === 'object' && node.properties) {
    const props = node.properties as Record<string, JsonSchema>;
    arb = fc.record(Object.fromEntries(Object.entries(props).map(([k, v]) => [k, arbitraryOf(v)])), { requiredKeys: (node.required as string[]) ?? [] });
  } else if (type === 'object') {
    const values = typeof node.additionalProperties === 'object' ? arbitraryOf(node.additionalProperties as JsonSchema) : fc.string();
    arb = fc.dictionary(fc.string({ minLength: 1, maxLength: 5 }), values, { maxKeys: 3 });
  } else if (type === 'string') {
    const max = (node.maxLength as number | undefined) ?? 40;
    arb = (typeof node.pattern === 'string' ? fc.stringMatching(new RegExp(node.pattern)) : fc.string({ maxLength: max })).filter((s) => s.length <= max);
  } else if (type === 'integer') arb = fc.integer({ min: (node.minimum as number) ?? -1000, max: (node.maximum as number) ?? 1000 });
  else if (type === 'number') arb = fc.double({ noNaN: true, noDefaultInfinity: true });
  else if (type === 'boolean') arb = fc.boolean();
  else if (type === 'array') {
    const items = node.items ? arbitraryOf(node.items as JsonSchema) : fc.string();
    const maxLength = Math.min((node.maxItems as number | undefined) ?? 4, 4);
    const minLength = (node.minItems as number | undefined) ?? 0;
    arb = node.uniqueItems === true ? fc.uniqueArray(items, { minLength, maxLength, selector: (v) => JSON.stringify(v) }) : fc.array(items, { minLength, maxLength });
  } else throw new Error(`no arbitrary for ${JSON.stringify(node).slice(0, 80)}`);
  return node.nullable === true ? fc.option(arb, { nil: null, freq: 5 }) : arb;
}

describe('validateCdnOptions', () => {
  for (const [set, component] of [
    ['resource', 'resource_options'],
    ['rule', 'rule_options'],
  ] as const) {
    const properties = schemas[component]!.properties as Record<string, JsonSchema>;

    it(`lists every option of components.schemas.${component}, in the spec's order`, () => {
      expect(cdnOptionNames(set)).toEqual(Object.keys(properties));
      expect(cdnOptionNames(set).length).toBeGreaterThan(40);
    });

    it(`accepts every ${set} option the spec lists with its example and with values generated from its schema`, () => {
      for (const [name, ref] of Object.entries(properties)) {
        expect(validateCdnOptions({ [name]: resolve(ref).example }, set), `${name}: the spec's example`).toEqual([]);
        // 25 values per option (about 1,100 in all) find a schema the generator got wrong without taking seconds.
        fc.assert(
          fc.property(arbitraryOf(ref), (value) => {
            expect(validateCdnOptions({ [name]: value }, set), `${name}: ${JSON.stringify(value)}`).toEqual([]);
          }),
          { numRuns: 25, seed: 23 },
        );
      }
    });
  }

  it('accepts no options and a null option (not set)', () => {
    expect(validateCdnOptions({}, 'resource')).toEqual([]);
    expect(validateCdnOptions({ gzipOn: null }, 'rule')).toEqual([]);
  });

  it('reports an unknown option name with the nearest known one', () => {
    expect(validateCdnOptions({ gzipon: { enabled: true, value: true } }, 'resource')).toEqual([
      { path: ['gzipon'], message: 'unknown CDN resource option "gzipon"', suggestion: 'gzipOn' },
    ]);
    expect(validateCdnOptions({ edge_cache_setings: { enabled: true, value: '1d' } }, 'rule')).toEqual([
      { path: ['edge_cache_setings'], message: 'unknown CDN rule option "edge_cache_setings"', suggestion: 'edge_cache_settings' },
    ]);
    expect(validateCdnOptions({ completely_else: {} }, 'rule')).toEqual([{ path: ['completely_else'], message: 'unknown CDN rule option "completely_else"' }]);
  });

  it('refuses the resource-only options in a rule', () => {
    expect(CDN_RESOURCE_OPTION_NAMES.filter((n) => !(CDN_RULE_OPTION_NAMES as readonly string[]).includes(n))).toContain('http3_enabled');
    expect(validateCdnOptions({ http3_enabled: { enabled: true, value: true } }, 'rule')).toEqual([
      { path: ['http3_enabled'], message: 'unknown CDN rule option "http3_enabled"' },
    ]);
    expect(validateCdnOptions({ http3_enabled: { enabled: true, value: true } }, 'resource')).toEqual([]);
  });

  it('reports an unknown field inside an option, also deep inside, with a suggestion', () => {
    expect(validateCdnOptions({ cors: { enabled: true, value: ['*'], alwayz: true } }, 'resource')).toEqual([
      { path: ['cors', 'alwayz'], message: 'unknown field "alwayz" in option cors', suggestion: 'always' },
    ]);
    expect(
      validateCdnOptions({ force_return: { enabled: true, code: 301, body: 'x', time_interval: { start_time: '06:00', end_time: '18:00', timezone: 'UTC' } } }, 'resource'),
    ).toEqual([{ path: ['force_return', 'time_interval', 'timezone'], message: 'unknown field "timezone" in option force_return.time_interval', suggestion: 'time_zone' }]);
  });

  it('reports a bad nested value at its path', () => {
    const issues = validateCdnOptions(
      {
        rewrite: { enabled: 'yes', body: '/(.*) /a/$1' },
        browser_cache_settings: { enabled: true, value: '1 hour' },
        static_response_headers: {
          enabled: true,
          value: [
            { name: 'X-Ok', value: ['a'] },
            { name: 'bad name', value: ['a'] },
          ],
        },
        force_return: { enabled: true, code: 700, body: '' },
        allowedHttpMethods: { enabled: true, value: ['GET', 'GET'] },
      },
      'resource',
    );
    expect(issues.map((i) => i.path)).toEqual([
      ['allowedHttpMethods', 'value'],
      ['browser_cache_settings', 'value'],
      ['force_return', 'code'],
      ['rewrite', 'enabled'],
      ['static_response_headers', 'value', 1, 'name'],
    ]);
    expect(issues.find((i) => i.path[0] === 'rewrite')?.message).toBe('Invalid input: expected boolean, received string');
    expect(issues.find((i) => i.path[0] === 'allowedHttpMethods')?.message).toBe('items must be unique');
  });

  it('reports a missing required field of an option and options that are not a mapping', () => {
    expect(validateCdnOptions({ gzipOn: { enabled: true } }, 'resource')).toEqual([{ path: ['gzipOn', 'value'], message: 'Invalid input: expected boolean, received undefined' }]);
    expect(validateCdnOptions(['gzipOn'], 'resource')).toEqual([{ path: [], message: 'Invalid input: expected object, received array' }]);
  });
});

describe('deprecatedOptionWarnings', () => {
  it('warns of every option the spec marks deprecated, naming the replacement its description gives', () => {
    const marked = Object.entries(resolve(schemas['resource_options']!).properties as Record<string, JsonSchema>).filter(([, option]) => resolve(option).deprecated === true);
    expect(marked.length).toBeGreaterThan(0);
    for (const [name, option] of marked) {
      const replacement = /Use the `(\w+)` option instead/.exec(String(resolve(option).description))![1]!;
      expect(CDN_DEPRECATED_OPTIONS[name]).toBe(replacement);
      expect(deprecatedOptionWarnings({ [name]: null, gzipOn: { enabled: true, value: true } })).toEqual([
        {
          path: ['options', name],
          code: 'deprecated',
          message: `option ${name} is deprecated by the vendor: use ${replacement} instead`,
          detail: expect.stringContaining(replacement),
        },
      ]);
    }
    expect(deprecatedOptionWarnings(undefined)).toEqual([]);
  });
});

describe('declaredOptionsDiff', () => {
  const live = {
    gzipOn: { enabled: true, value: true },
    cors: { enabled: true, value: ['a.com'], always: false },
    edge_cache_settings: { enabled: true, value: '1d', custom_values: { '404': '5m' }, default: null },
    websockets: null,
  };

  it("compares a declared option with the live option's same fields only", () => {
    expect(declaredOptionsDiff({ cors: { enabled: true, value: ['a.com'] } }, live)).toEqual([]);
    expect(declaredOptionsDiff({ edge_cache_settings: { enabled: true, value: '1d' } }, live)).toEqual([]);
    expect(declaredOptionsDiff({ cors: { enabled: true, value: ['a.com'], always: true } }, live)).toEqual([
      { option: 'cors', before: { enabled: true, value: ['a.com'], always: false }, after: { enabled: true, value: ['a.com'], always: true } },
    ]);
  });

  it('ignores options the block does not declare', () => {
    expect(declaredOptionsDiff({}, live)).toEqual([]);
    expect(declaredOptionsDiff({ gzipOn: { enabled: true, value: true } }, live)).toEqual([]);
  });

  it('reports a declared option the platform does not have, and a declared null against a set option', () => {
    expect(declaredOptionsDiff({ websockets: { enabled: true, value: true } }, live)).toEqual([{ option: 'websockets', before: null, after: { enabled: true, value: true } }]);
    expect(declaredOptionsDiff({ brotli_compression: { enabled: true, value: ['text/html'] } }, null)).toEqual([
      { option: 'brotli_compression', before: null, after: { enabled: true, value: ['text/html'] } },
    ]);
    expect(declaredOptionsDiff({ gzipOn: null, websockets: null }, live)).toEqual([{ option: 'gzipOn', before: { enabled: true, value: true }, after: null }]);
  });

  it('compares nested values whole, whatever their key order', () => {
    expect(declaredOptionsDiff({ edge_cache_settings: { value: '1d', custom_values: { '404': '5m' }, enabled: true } }, live)).toEqual([]);
    expect(declaredOptionsDiff({ edge_cache_settings: { enabled: true, custom_values: { '404': '10m' } } }, live)).toEqual([
      { option: 'edge_cache_settings', before: { enabled: true, custom_values: { '404': '5m' } }, after: { enabled: true, custom_values: { '404': '10m' } } },
    ]);
  });

  it('cuts the live options to the declared shape (a field the platform does not show is null)', () => {
    expect(projectDeclaredOptions({ cors: { enabled: false, value: [], vary: true }, gzipOn: null }, live)).toEqual({
      cors: { enabled: true, value: ['a.com'], vary: null },
      gzipOn: { enabled: true, value: true },
    });
  });
});

describe('knownOptions', () => {
  it('keeps the options an answer shows set, each with the fields edgeform knows, and leaves out what a later answer adds', () => {
    const answered = {
      gzipOn: { enabled: true, value: true, added_later: 1 },
      brand_new_option: { enabled: true, value: 'x' },
      cors: null,
      allowedHttpMethods: { enabled: true, value: ['GET', 'HEAD'] },
    };
    expect(knownOptions('resource', answered)).toEqual({ gzipOn: { enabled: true, value: true }, allowedHttpMethods: { enabled: true, value: ['GET', 'HEAD'] } });
    expect(validateCdnOptions(knownOptions('resource', answered), 'resource')).toEqual([]);
    expect(knownOptions('rule', null)).toEqual({});
  });
});
