/**
 * Answers drawn from the vendor's response schemas (the OpenAPI files in test/fixtures/openapi/),
 * for the test that every answer the specs allow is read: which operation a request is, what its
 * 200 answer may hold, the places in a real answer where the spec allows another form (an enum's
 * other values, null where nullable, an optional field absent, a field's default, extra fields,
 * a synonym the spec states), and bodies generated from the schema alone (fast-check).
 */
import fc from 'fast-check';
import { loadSpec, type OpenApiSpec } from './openapi.js';

/** The vendor spec of each product (a path's first segment). */
const SPEC_OF_PRODUCT: Readonly<Record<string, string>> = {
  cloud: 'cloud_api.yaml',
  dns: 'dns_api.yaml',
  cdn: 'cdn_api.yaml',
  fastedge: 'fastedge_api.yaml',
  iam: 'iam_reseller_api.yaml',
  streaming: 'streaming_api.yaml',
};

/** A schema of the spec (a plain object as the YAML holds it). */
export type Schema = Record<string, any>;

/** One read operation of a vendor spec and the schema of its 200 JSON answer. */
export interface SpecOperation {
  file: string;
  /** The spec's path template (`/cloud/v1/floatingips/{project_id}/{region_id}/{floating_ip_id}`). */
  template: string;
  /** `GET TEMPLATE`, for test names. */
  name: string;
  spec: OpenApiSpec;
  schema: Schema;
}

const operations = new Map<string, SpecOperation | null>();

/**
 * The spec's GET operation a request path is (the template matching most literal segments), with
 * the schema of its 200 JSON answer; undefined when no spec documents one.
 */
export function operationOf(path: string): SpecOperation | undefined {
  const bare = path.split('?', 1)[0]!;
  const segments = bare.split('/').slice(1);
  const file = SPEC_OF_PRODUCT[segments[0] ?? ''];
  if (file === undefined) return undefined;
  const spec = loadSpec(file);
  let best: { template: string; literals: number } | undefined;
  for (const template of Object.keys(spec.doc.paths)) {
    if (template.includes('#') || spec.doc.paths[template].get === undefined) continue;
    const parts = template.split('/').slice(1);
    if (parts.length !== segments.length) continue;
    let literals = 0;
    const matches = parts.every((part, i) => {
      if (/^\{[^}]+\}$/.test(part)) return segments[i] !== '';
      literals++;
      return part === segments[i];
    });
    if (matches && (best === undefined || literals > best.literals)) best = { template, literals };
  }
  if (best === undefined) return undefined;
  const key = `${file} ${best.template}`;
  if (!operations.has(key)) {
    let response = spec.doc.paths[best.template].get.responses?.['200'];
    if (response?.$ref) response = spec.doc.components.responses[response.$ref.split('/').pop()];
    const schema = response?.content?.['application/json']?.schema;
    operations.set(key, schema === undefined ? null : { file, template: best.template, name: `GET ${best.template}`, spec, schema });
  }
  return operations.get(key) ?? undefined;
}

/** A schema with its `$ref`s followed. */
function resolve(spec: OpenApiSpec, schema: Schema | undefined): Schema {
  let s = schema ?? {};
  for (let hops = 0; typeof s.$ref === 'string' && hops < 32; hops++) s = spec.doc.components.schemas[s.$ref.split('/').pop()!] ?? {};
  return s;
}

/** The alternatives a schema allows, each resolved (anyOf/oneOf flattened, allOf merged into one object schema). */
function branches(spec: OpenApiSpec, schema: Schema | undefined): Schema[] {
  let s = resolve(spec, schema);
  if (Array.isArray(s.allOf)) {
    const { allOf, ...rest } = s;
    const parts = (allOf as Schema[]).map((part) => branches(spec, part)[0] ?? {});
    s = {
      type: 'object',
      ...rest,
      properties: Object.assign({}, rest.properties, ...parts.map((p) => p.properties ?? {})),
      required: [...new Set([...(rest.required ?? []), ...parts.flatMap((p) => p.required ?? [])])],
    };
  }
  const alternatives = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (!alternatives) return [s];
  const { anyOf: _a, oneOf: _o, ...rest } = s;
  return alternatives.flatMap((b) => branches(spec, b).map((r) => ({ ...rest, ...r })));
}

const typesOf = (s: Schema): string[] => (Array.isArray(s.type) ? s.type : s.type === undefined ? [] : [s.type]);

/** Whether a schema allows null. */
function allowsNull(spec: OpenApiSpec, schema: Schema | undefined): boolean {
  return branches(spec, schema).some((b) => typesOf(b).includes('null') || (Array.isArray(b.enum) && b.enum.includes(null)));
}

/** The non-null values an enum allows, across the schema's branches. */
function enumValues(spec: OpenApiSpec, schema: Schema | undefined): unknown[] {
  return [...new Set(branches(spec, schema).flatMap((b) => (Array.isArray(b.enum) ? b.enum : b.const !== undefined ? [b.const] : [])))].filter((v) => v !== null);
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The branch of a schema a value is an instance of (for an object, the one whose properties it holds most of). */
function branchFor(spec: OpenApiSpec, schema: Schema | undefined, value: unknown): Schema {
  const all = branches(spec, schema);
  const kind = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value === 'number' ? (Number.isInteger(value) ? 'integer' : 'number') : typeof value;
  const fitting = all.filter((b) => typesOf(b).length === 0 || typesOf(b).includes(kind) || (kind === 'integer' && typesOf(b).includes('number')));
  if (isPlainObject(value)) {
    const score = (b: Schema) => Object.keys(value).filter((k) => Object.hasOwn(b.properties ?? {}, k)).length;
    return fitting.sort((a, b) => score(b) - score(a))[0] ?? {};
  }
  return fitting[0] ?? {};
}

/**
 * Forms a spec says are the same value: a security group rule's protocol `any` of the v1
 * SecurityGroupProtocolEnum is null of the v2 requests ("V2 protocol enum without 'any'. Use null
 * for all protocols instead.", cloud_api.yaml SecurityGroupProtocolEnumV2).
 */
const SYNONYMS: ReadonlyArray<{ schema: string; value: unknown; same: unknown }> = [{ schema: 'SecurityGroupProtocolEnum', value: 'any', same: null }];

/** One place in an answer where the spec allows another form, and that form. */
export interface Site {
  /** Where, `*` for every element of an array: `results.*.protocol`. */
  where: string;
  /** What the form is: `absent (for null)`, `status: "ERROR"`. */
  form: string;
  /** True when the spec says the form means the same (so the plan must not change). */
  same: boolean;
  path: readonly (string | number)[];
  /** Whether the object at the path takes this form (the field is as the site found it there). */
  when(parent: Record<string, unknown>): boolean;
  edit(parent: Record<string, unknown>): void;
}

/** A field no version of the vendor's answers has: readers must ignore it. */
const EXTRA_FIELD = 'x_edgeform_spec_extra';
const EXTRA_VALUE = { nested: [1, 'two', null, { three: true }] };

/** Whether an object schema is a map (any keys) rather than a record of named fields. */
function isMap(s: Schema): boolean {
  return s.properties === undefined || Object.keys(s.properties).length === 0;
}

/**
 * The places in `body` (an answer to the operation) where the spec allows another form, walking
 * the body beside its schema; an array's first element stands for all of them (`*`).
 */
export function sitesOf(operation: SpecOperation, body: unknown): Site[] {
  const { spec } = operation;
  const sites: Site[] = [];
  const walk = (schema: Schema | undefined, value: unknown, path: (string | number)[]): void => {
    const branch = branchFor(spec, schema, value);
    if (Array.isArray(value)) {
      if (value.length > 0) walk(branch.items, value[0], [...path, '*']);
      return;
    }
    if (!isPlainObject(value) || isMap(branch)) return;
    const at = (key: string) => [...path, key].join('.');
    const site = (key: string, form: string, same: boolean, when: Site['when'], edit: Site['edit']) => sites.push({ where: at(key), form, same, path, when, edit });
    if (!Object.hasOwn(value, EXTRA_FIELD))
      site(
        EXTRA_FIELD,
        'an extra field',
        true,
        (o) => !Object.hasOwn(o, EXTRA_FIELD),
        (o) => (o[EXTRA_FIELD] = structuredClone(EXTRA_VALUE)),
      );
    const required = new Set<string>(branch.required ?? []);
    for (const [key, propSchema] of Object.entries(branch.properties as Record<string, Schema>)) {
      const present = Object.hasOwn(value, key);
      const v = value[key];
      const optional = !required.has(key);
      const nullable = allowsNull(spec, propSchema);
      const resolved = resolve(spec, propSchema);
      const fallback = resolved.default ?? branches(spec, propSchema).find((b) => b.default !== undefined)?.default;
      const has = (o: Record<string, unknown>) => Object.hasOwn(o, key);
      if (present && v === null && optional)
        site(
          key,
          'absent (for null)',
          true,
          (o) => has(o) && o[key] === null,
          (o) => delete o[key],
        );
      if (!present && nullable)
        site(
          key,
          'null (for absent)',
          true,
          (o) => !has(o),
          (o) => (o[key] = null),
        );
      if (!present && fallback !== undefined && fallback !== null)
        site(
          key,
          `its default ${JSON.stringify(fallback)} (for absent)`,
          true,
          (o) => !has(o),
          (o) => (o[key] = structuredClone(fallback)),
        );
      if (present && optional && fallback !== undefined && JSON.stringify(v) === JSON.stringify(fallback))
        site(
          key,
          `absent (for its default ${JSON.stringify(fallback)})`,
          true,
          (o) => has(o) && JSON.stringify(o[key]) === JSON.stringify(fallback),
          (o) => delete o[key],
        );
      for (const synonym of SYNONYMS) {
        if (!present || !JSON.stringify(propSchema).includes(`/${synonym.schema}"`)) continue;
        for (const [from, to] of [
          [synonym.same, synonym.value],
          [synonym.value, synonym.same],
        ] as const) {
          if (v === from)
            site(
              key,
              `${JSON.stringify(to)} (for ${JSON.stringify(from)}, ${synonym.schema})`,
              true,
              (o) => has(o) && o[key] === from,
              (o) => (o[key] = to),
            );
        }
      }
      if (present && v !== null) {
        for (const other of enumValues(spec, propSchema).filter((e) => e !== v))
          site(
            key,
            `${JSON.stringify(other)}`,
            false,
            (o) => has(o) && o[key] !== null,
            (o) => (o[key] = other),
          );
        if (nullable)
          site(
            key,
            'null',
            false,
            (o) => has(o) && o[key] !== null,
            (o) => (o[key] = null),
          );
        if (optional) site(key, 'absent', false, has, (o) => delete o[key]);
        walk(propSchema, v, [...path, key]);
      }
    }
  };
  walk(operation.schema, body, []);
  return sites;
}

/** `body` with each site's form applied wherever its path leads (a copy). */
export function withForms(body: unknown, sites: readonly Site[]): unknown {
  const copy = structuredClone(body);
  for (const site of sites) {
    const visit = (node: unknown, rest: readonly (string | number)[]): void => {
      if (rest.length === 0) {
        if (isPlainObject(node) && site.when(node)) site.edit(node);
        return;
      }
      const [head, ...tail] = rest;
      if (head === '*') {
        if (Array.isArray(node)) for (const element of node) visit(element, tail);
      } else if (isPlainObject(node)) visit(node[head as string], tail);
    };
    visit(copy, site.path);
  }
  return copy;
}

/**
 * Groups of the sites that set an enum: the r-th group gives each enum field its r-th other
 * value, so every value of every enum is answered once over max(values) runs.
 */
export function enumRounds(sites: readonly Site[]): Site[][] {
  const byField = new Map<string, Site[]>();
  for (const s of sites.filter((s) => !s.same && s.form !== 'null' && s.form !== 'absent')) byField.set(s.where, [...(byField.get(s.where) ?? []), s]);
  const rounds = Math.max(0, ...[...byField.values()].map((v) => v.length));
  return Array.from({ length: rounds }, (_, r) => [...byField.values()].flatMap((values) => (values[r] === undefined ? [] : [values[r]!])));
}

const DATE_TIME = fc.date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2030-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());

/** A fast-check arbitrary of the values a schema allows (bounded: short strings and lists, nesting cut at `depth`). */
export function arbitraryOf(spec: OpenApiSpec, schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  const all = branches(spec, schema);
  const one = (s: Schema): fc.Arbitrary<unknown>[] => {
    if (Array.isArray(s.enum) && s.enum.length > 0) return [fc.constantFrom(...(s.enum as unknown[]))];
    if (s.const !== undefined) return [fc.constant(s.const)];
    const types = typesOf(s);
    return (types.length === 0 ? ['object'] : types).map((type): fc.Arbitrary<unknown> => {
      switch (type) {
        case 'null':
          return fc.constant(null);
        case 'boolean':
          return fc.boolean();
        case 'integer':
          return fc.integer({ min: s.minimum ?? -5, max: s.maximum ?? Math.max(5, (s.minimum ?? 0) + 5) });
        case 'number':
          return fc.double({ min: s.minimum ?? -5, max: s.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true });
        case 'string':
          if (s.format === 'date-time') return DATE_TIME;
          if (s.format === 'uuid' || s.format === 'uuid4') return fc.uuid({ version: 4 });
          return fc.string({ minLength: s.minLength ?? 0, maxLength: Math.max(s.minLength ?? 0, 8) });
        case 'array':
          return depth > 5 ? fc.constant([]) : fc.array(arbitraryOf(spec, s.items, depth + 1), { maxLength: 3, minLength: Math.min(s.minItems ?? 0, 3) });
        default: {
          if (depth > 5) return fc.constant({});
          if (isMap(s)) {
            const values = isPlainObject(s.additionalProperties) ? arbitraryOf(spec, s.additionalProperties, depth + 1) : fc.jsonValue({ maxDepth: 1 });
            return fc.dictionary(fc.string({ maxLength: 6 }), values, { maxKeys: 2 });
          }
          const props = Object.fromEntries(Object.entries(s.properties as Record<string, Schema>).map(([k, p]) => [k, arbitraryOf(spec, p, depth + 1)]));
          return fc.record(props, { requiredKeys: (s.required ?? []).filter((k: string) => Object.hasOwn(props, k)) });
        }
      }
    });
  };
  const options = all.flatMap(one);
  return options.length === 1 ? options[0]! : fc.oneof(...options);
}
