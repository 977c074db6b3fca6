#!/usr/bin/env node
// Generates the CDN options schemas (zod) from the vendor's OpenAPI file in the repository, so a
// new option in the spec is a new option in edgeform after `npm run generate:cdn-options`.
// test/unit/kinds/cdn-options-generated.test.ts fails when a committed file differs from what
// this script writes. A keyword it does not know is an error, never a rule silently dropped.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as jsYaml from 'js-yaml';
import * as prettier from 'prettier';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The spec file, relative to the repository's root. */
export const CDN_SPEC_FILE = 'test/fixtures/openapi/cdn_api.yaml';

/** Where the generated module goes, relative to the repository's root. */
export const CDN_OPTIONS_TARGETS = ['src/kinds/cdn-options-schema.ts', 'src/emulator/services/cdn/options-schema.ts'];

/** The option sets generated: the export's name and the spec's component. */
const SETS = [
  { exportName: 'cdnResourceOptionsSchema', namesExport: 'CDN_RESOURCE_OPTION_NAMES', component: 'resource_options', what: "a CDN resource's options" },
  { exportName: 'cdnRuleOptionsSchema', namesExport: 'CDN_RULE_OPTION_NAMES', component: 'rule_options', what: "a CDN rule's options" },
];

/** Keywords that change no validation here (documentation, SDK hints, defaults the platform fills in). */
const IGNORED = new Set([
  'description',
  'example',
  'examples',
  'default',
  'format',
  'deprecated',
  'title',
  'readOnly',
  'writeOnly',
  'x-stainless-collection-type',
  'x-stainless-terraform-configurability',
]);
const HANDLED = new Set([
  'type',
  'nullable',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'pattern',
  'maxLength',
  'minLength',
  'minimum',
  'maximum',
  'maxItems',
  'minItems',
  'uniqueItems',
  'allOf',
  '$ref',
]);

/** The option a deprecated option's description says to use instead ("Use the `edge_cache_settings` option instead."), or null. */
function replacementOf(description) {
  const named = /\buse (?:the )?`([A-Za-z_][\w.]*)`(?: option)? instead\b/i.exec(String(description ?? ''));
  return named ? named[1] : null;
}

/** The source of the generated module for the spec's text (formatted as the repository formats TypeScript). */
export async function generateCdnOptionsModule(specText) {
  const spec = jsYaml.load(specText);
  const schemas = spec?.components?.schemas ?? {};
  const resolve = (node) => {
    if (node && typeof node === 'object' && typeof node.$ref === 'string') {
      const name = node.$ref.replace('#/components/schemas/', '');
      const target = schemas[name];
      if (target === undefined) throw new Error(`${CDN_SPEC_FILE}: unresolved $ref ${node.$ref}`);
      const { $ref, ...rest } = node;
      return Object.keys(rest).length > 0 ? { allOf: [target, rest] } : target;
    }
    return node;
  };
  /** allOf of object schemas: one schema with every part's keywords (properties and required merged). */
  const flatten = (raw, where) => {
    const node = resolve(raw);
    if (!node.allOf) return node;
    const { allOf, ...own } = node;
    const merged = { ...own };
    for (const part of allOf.map((p) => flatten(p, where))) {
      for (const [key, value] of Object.entries(part)) {
        if (key === 'properties') merged.properties = { ...merged.properties, ...value };
        else if (key === 'required') merged.required = [...new Set([...(merged.required ?? []), ...value])];
        else if (merged[key] === undefined) merged[key] = value;
        else if (JSON.stringify(merged[key]) !== JSON.stringify(value) && !IGNORED.has(key)) throw new Error(`${where}: allOf parts disagree on ${key}`);
      }
    }
    return merged;
  };
  const zodOf = (raw, where) => {
    const node = flatten(raw, where);
    if (node.deprecated === true) deprecated.set(where.split('.').slice(1).join('.'), replacementOf(node.description));
    for (const key of Object.keys(node)) {
      if (!IGNORED.has(key) && !HANDLED.has(key)) throw new Error(`${where}: the generator does not know the keyword "${key}"; teach scripts/generate-cdn-options.mjs`);
    }
    let code;
    const type = node.type ?? (node.properties ? 'object' : undefined);
    if (type === 'object') {
      if (node.properties && Object.keys(node.properties).length > 0) {
        const required = new Set(node.required ?? []);
        const fields = Object.entries(node.properties).map(([name, sub]) => `${JSON.stringify(name)}: ${zodOf(sub, `${where}.${name}`)}${required.has(name) ? '' : '.optional()'}`);
        code = `z.strictObject({ ${fields.join(', ')} })`;
      } else {
        const values = node.additionalProperties && typeof node.additionalProperties === 'object' ? zodOf(node.additionalProperties, `${where}.*`) : 'z.unknown()';
        code = `z.record(z.string(), ${values})`;
      }
    } else if (type === 'string') {
      code = node.enum ? `z.enum(${JSON.stringify(node.enum)})` : 'z.string()';
      if (node.minLength !== undefined) code += `.min(${node.minLength})`;
      if (node.maxLength !== undefined) code += `.max(${node.maxLength})`;
      if (node.pattern !== undefined) code += `.regex(new RegExp(${JSON.stringify(node.pattern)}))`;
    } else if (type === 'integer' || type === 'number') {
      code = node.enum ? `z.literal(${JSON.stringify(node.enum)})` : type === 'integer' ? 'z.int()' : 'z.number()';
      if (!node.enum && node.minimum !== undefined) code += `.min(${node.minimum})`;
      if (!node.enum && node.maximum !== undefined) code += `.max(${node.maximum})`;
    } else if (type === 'boolean') {
      code = 'z.boolean()';
    } else if (type === 'array') {
      code = `z.array(${node.items ? zodOf(node.items, `${where}[]`) : 'z.unknown()'})`;
      if (node.minItems !== undefined) code += `.min(${node.minItems})`;
      if (node.maxItems !== undefined) code += `.max(${node.maxItems})`;
      if (node.uniqueItems === true) code += '.refine(uniqueItems, UNIQUE)';
    } else {
      throw new Error(`${where}: the generator does not know the type ${JSON.stringify(node.type)}`);
    }
    return node.nullable === true ? `${code}.nullable()` : code;
  };

  const optionNames = new Map();
  const defaults = new Map();
  /** Options and fields the spec marks deprecated, by path under the set (`disable_cache`): the option to use instead, or null. */
  const deprecated = new Map();
  const sets = SETS.map(({ exportName, namesExport, component, what }) => {
    const set = flatten(schemas[component] ?? {}, component);
    if (!set.properties) throw new Error(`${CDN_SPEC_FILE}: components.schemas.${component} has no properties`);
    const entries = Object.entries(set.properties).map(([name, sub]) => {
      // The option's own description (its first paragraph) goes with it into edgeform.schema.json, for editors.
      const summary = String(flatten(sub, `${component}.${name}`).description ?? '')
        .split('\n\n')[0]
        .trim();
      const code = `${zodOf(sub, `${component}.${name}`)}${summary === '' ? '' : `.describe(${JSON.stringify(summary)})`}`;
      const key = optionNames.get(name);
      if (key !== undefined && key !== code) throw new Error(`${component}.${name} differs from the same option of another set`);
      optionNames.set(name, code);
      const fields = Object.entries(flatten(sub, `${component}.${name}`).properties ?? {}).flatMap(([field, schema]) => {
        const resolved = flatten(schema, `${component}.${name}.${field}`);
        return resolved.default === undefined ? [] : [[field, resolved.default]];
      });
      if (fields.length > 0) defaults.set(name, Object.fromEntries(fields));
      return name;
    });
    return { exportName, namesExport, component, what, names: entries };
  });

  const version = String(spec?.info?.version ?? 'unknown');
  const lines = [
    '// Generated by scripts/generate-cdn-options.mjs (npm run generate:cdn-options): do not edit.',
    `// From ${CDN_SPEC_FILE}, info.version ${version}: components.schemas.${SETS.map((s) => s.component).join(' and ')}.`,
    "import { z } from 'zod';",
    '',
    'const uniqueItems = (items: readonly unknown[]): boolean => new Set(items.map((item) => JSON.stringify(item))).size === items.length;',
    "const UNIQUE = { message: 'items must be unique' };",
    '',
    '/** The spec the schemas were generated from. */',
    `export const CDN_OPTIONS_SOURCE = { file: ${JSON.stringify(CDN_SPEC_FILE)}, version: ${JSON.stringify(version)} } as const;`,
    '',
    '/** A value built when first asked for, then kept. */',
    'function once<T>(build: () => T): () => T {',
    '  let value: T | undefined;',
    '  return () => (value ??= build());',
    '}',
    '',
    '/**',
    ' * Every option of either set, by name: its value as the spec declares it (null clears it). Built',
    " * when an option set's schema is first asked for, so a stack without CDN blocks never builds it.",
    ' */',
    `const OPTIONS = once(() => ({ ${[...optionNames].map(([name, code]) => `${JSON.stringify(name)}: ${code}`).join(',\n')} }));`,
    '',
    '/**',
    ' * The options (and fields, as `option.field`) the spec marks deprecated, by name: the option its description says to use instead,',
    ' * or null when it names none. Such an option still works; validate warns of it.',
    ' */',
    `export const CDN_DEPRECATED_OPTIONS: Readonly<Record<string, string | null>> = ${JSON.stringify(Object.fromEntries([...deprecated].sort(([a], [b]) => (a < b ? -1 : 1))))};`,
    '',
    '/** Per option, the defaults the spec declares for its fields: what the platform fills in when a request leaves such a field out. */',
    `export const CDN_OPTION_FIELD_DEFAULTS: Readonly<Record<string, Readonly<Record<string, unknown>>>> = ${JSON.stringify(Object.fromEntries(defaults))};`,
    '',
  ];
  for (const set of sets) {
    lines.push(`/** The option names of ${set.what} (components.schemas.${set.component}), in the spec's order. */`);
    lines.push(`export const ${set.namesExport} = ${JSON.stringify(set.names)} as const;`);
    lines.push('');
    lines.push(
      `/** ${set.what[0].toUpperCase()}${set.what.slice(1)} (components.schemas.${set.component}): every option optional, unknown names and fields refused; built on the first call. */`,
    );
    lines.push(
      `export const ${set.exportName} = once(() => z.strictObject({ ${set.names.map((name) => `${JSON.stringify(name)}: OPTIONS()[${JSON.stringify(name)}].optional()`).join(', ')} }));`,
    );
    lines.push('');
  }
  const options = (await prettier.resolveConfig(`${root}${CDN_OPTIONS_TARGETS[0]}`)) ?? {};
  return prettier.format(lines.join('\n'), { ...options, parser: 'typescript' });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = await generateCdnOptionsModule(readFileSync(`${root}${CDN_SPEC_FILE}`, 'utf8'));
  for (const target of CDN_OPTIONS_TARGETS) {
    writeFileSync(`${root}${target}`, text);
    console.log(`wrote ${target}`);
  }
}
