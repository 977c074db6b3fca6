import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { expect } from 'vitest';
import { Ajv2020, type Format, type ValidateFunction } from 'ajv/dist/2020.js';
import { createAjv } from './ajv.js';
import { parse } from 'yaml';

/** The vendor's OpenAPI 3.1 files the contract tests use, committed with their source (see its README.md). */
export const OPENAPI_DIR = new URL('../fixtures/openapi/', import.meta.url);

/** One loaded vendor spec with its own validator instance. */
export interface OpenApiSpec {
  file: string;
  doc: any;
  ajv: Ajv2020;
}

const specs = new Map<string, OpenApiSpec>();

// The vendor's real datetimes are ISO 8601 but not always RFC 3339: "2019-06-13T13:58:12+0000"
// (offset without colon, floating IPs) and "2019-07-26T13:25:03" (no offset, quota requests).
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?$/i;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** An IPv4 or IPv6 address, and the same with a `/prefix` (a network in CIDR notation, an interface). */
const isIp = (s: string): boolean => isIP(s) !== 0;
const withPrefix = (s: string, family?: 4 | 6): boolean => {
  const [address, prefix, ...rest] = s.split('/');
  const kind = isIP(address ?? '');
  return (
    rest.length === 0 && prefix !== undefined && /^\d{1,3}$/.test(prefix) && kind !== 0 && (family === undefined || kind === family) && Number(prefix) <= (kind === 4 ? 32 : 128)
  );
};

/** The vendor's own formats that edgeform's answers are checked against (pydantic's ip types, decimals). */
const VENDOR_FORMATS: Record<string, Format> = {
  ipvanynetwork: (s) => withPrefix(s),
  ipv4network: (s) => withPrefix(s, 4),
  ipv6network: (s) => withPrefix(s, 6),
  'ipv4net or ipv6net': (s) => withPrefix(s),
  ipvanyinterface: (s) => isIp(s) || withPrefix(s),
  ipv4interface: (s) => isIP(s.split('/')[0]!) === 4 && (!s.includes('/') || withPrefix(s, 4)),
  ipv6interface: (s) => isIP(s.split('/')[0]!) === 6 && (!s.includes('/') || withPrefix(s, 6)),
  decimal: { type: 'number', validate: (n: number) => Number.isFinite(n) },
};

/**
 * The vendor's formats that describe a value rather than constrain it (prose such as "nginx
 * time" or "domain or wildcard", or a type already given): accepted as declared, not checked.
 */
const DESCRIPTIVE_FORMATS = [
  'string',
  'nginx time',
  '{status_code or any}: {nginx time}',
  'domain',
  'domain or wildcard',
  'user_agent',
  'timezone',
  'http_header',
  'country-code',
  'Rule',
  'P(n)Y(n)M(n)DT(n)H(n)M)',
  'attachment; filename=<from>_<to>_<format>.zip',
  'int',
];

/**
 * Documented relaxations of the vendor schemas (generator quirks, not emulator leniency):
 * - `nullable: true` (an OpenAPI 3.0 leftover) and `default: null` on a typed schema mean the
 *   value may be null — the vendor's own default would fail its schema otherwise;
 * - paginator links `next`/`previous` typed as string may be null (the specification: "string or null").
 */
function relax(node: unknown, key?: string): void {
  if (Array.isArray(node)) {
    for (const item of node) relax(item);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const schema = node as Record<string, unknown>;
  const nullable =
    schema.nullable === true || (Object.hasOwn(schema, 'default') && schema.default === null) || ((key === 'next' || key === 'previous') && schema.type === 'string');
  if (nullable && typeof schema.type === 'string' && schema.type !== 'null') {
    schema.type = [schema.type, 'null'];
    if (Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...schema.enum, null];
  }
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'properties' && v && typeof v === 'object') {
      for (const [name, prop] of Object.entries(v as Record<string, unknown>)) relax(prop, name);
    } else relax(v);
  }
}

/**
 * dns_api.yaml is generated from Go, which renders `interface{}` (any JSON value) as `{type:
 * object}`: record content is typed an array of objects and every `meta` a map of objects, yet
 * the vendor's own examples are `[100, 1, 5061, "example.com"]` and `{"weight": 30,
 * "countries": ["us"]}`. In that file only, a bare `{type: object}` as array items or map values
 * is any value.
 */
function relaxGoInterfaces(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) relaxGoInterfaces(item);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const schema = node as Record<string, unknown>;
  const bare = (v: unknown): boolean => v !== null && typeof v === 'object' && Object.keys(v).length === 1 && (v as Record<string, unknown>).type === 'object';
  if (bare(schema.items)) schema.items = {};
  if (bare(schema.additionalProperties)) schema.additionalProperties = true;
  for (const v of Object.values(schema)) relaxGoInterfaces(v);
}

function rewriteRefs(node: unknown, id: string): unknown {
  if (Array.isArray(node)) return node.map((n) => rewriteRefs(n, id));
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#') ? `${id}${v}` : rewriteRefs(v, id);
  return out;
}

/** Declares the vendor's formats on a validator: those it checks, and those that only describe a value. */
export function addVendorFormats(ajv: Ajv2020): Ajv2020 {
  ajv.addFormat('date-time', ISO_DATE_TIME);
  ajv.addFormat('uuid4', UUID);
  ajv.addFormat('ipvanyaddress', (s: string) => IPV4.test(s) || (s.includes(':') && /^[0-9a-f:.]+$/i.test(s)));
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  ajv.addFormat('uint64', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= 0 });
  ajv.addFormat('uint32', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= 0 && n <= 0xffffffff });
  for (const [name, format] of Object.entries(VENDOR_FORMATS)) ajv.addFormat(name, format);
  for (const name of DESCRIPTIVE_FORMATS) ajv.addFormat(name, true);
  return ajv;
}

/** Loads (once per test file) and prepares a vendor spec, e.g. loadSpec('cloud_api.yaml'). */
export function loadSpec(file: string): OpenApiSpec {
  let spec = specs.get(file);
  if (spec) return spec;
  const doc = parse(readFileSync(new URL(file, OPENAPI_DIR), 'utf8')) as any;
  relax(doc.components);
  if (file === 'dns_api.yaml') relaxGoInterfaces(doc.components);
  const ajv = createAjv({ validateFormats: true });
  addVendorFormats(ajv);
  ajv.addSchema({ $id: file, components: doc.components }, file);
  spec = { file, doc, ajv };
  specs.set(file, spec);
  return spec;
}

function operation(spec: OpenApiSpec, method: string, path: string): any {
  const op = spec.doc.paths?.[path]?.[method.toLowerCase()];
  if (!op) throw new Error(`${spec.file}: no operation ${method} ${path}`);
  return op;
}

function compile(spec: OpenApiSpec, schema: unknown): ValidateFunction {
  const copy = rewriteRefs(structuredClone(schema), spec.file) as Record<string, unknown>;
  relax(copy);
  return spec.ajv.compile(copy);
}

/** The validator of an operation's response body for a status (JSON unless told otherwise). */
export function responseValidator(file: string, method: string, path: string, status: number, contentType = 'application/json'): ValidateFunction {
  const spec = loadSpec(file);
  let response = operation(spec, method, path).responses?.[String(status)];
  if (response?.$ref) response = spec.doc.components.responses[response.$ref.split('/').pop()];
  const schema = response?.content?.[contentType]?.schema;
  if (!schema) throw new Error(`${file}: ${method} ${path} has no ${contentType} schema for ${status}`);
  return compile(spec, schema);
}

/** The validator of an operation's JSON request body. */
export function requestValidator(file: string, method: string, path: string): ValidateFunction {
  const spec = loadSpec(file);
  const schema = operation(spec, method, path).requestBody?.content?.['application/json']?.schema;
  if (!schema) throw new Error(`${file}: ${method} ${path} has no JSON request body`);
  return compile(spec, schema);
}

/** The validator of a query parameter's value (typed as the schema says: a number for an integer) of an operation. */
export function queryParameterValidator(file: string, method: string, path: string, name: string): ValidateFunction {
  const spec = loadSpec(file);
  const params: any[] = (operation(spec, method, path).parameters ?? []).map((p: any) => (p.$ref ? spec.doc.components.parameters[p.$ref.split('/').pop()] : p));
  const param = params.find((p) => p.in === 'query' && p.name === name);
  if (!param?.schema) throw new Error(`${file}: ${method} ${path} has no query parameter ${name}`);
  return compile(spec, param.schema);
}

/**
 * A check of a query string against an operation's documented query parameters: every name must
 * be documented, a parameter given more than once must be an array, and each value (read as an
 * integer, number or boolean where the parameter's type says so) must fit its schema. Returns the
 * problems, none when the query is valid.
 */
export function queryChecker(file: string, method: string, path: string): (query: URLSearchParams) => string[] {
  const spec = loadSpec(file);
  const params = ((operation(spec, method, path).parameters ?? []) as any[])
    .map((p) => (p.$ref ? spec.doc.components.parameters[p.$ref.split('/').pop()] : p))
    .filter((p) => p.in === 'query');
  const byName = new Map(params.map((p) => [p.name as string, p]));
  const validators = new Map(params.map((p) => [p.name as string, compile(spec, p.schema)]));
  const scalarType = (schema: any): unknown => schema?.type ?? schema?.anyOf?.find((s: any) => s.type && s.type !== 'null')?.type;
  const coerce = (text: string, type: unknown): unknown => {
    if ((type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(text)) return Number(text);
    if (type === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
    return text;
  };
  return (query) => {
    const problems: string[] = [];
    for (const name of new Set(query.keys())) {
      const param = byName.get(name);
      if (!param) {
        problems.push(`${name}: not a documented query parameter of ${method} ${path}`);
        continue;
      }
      const values = query.getAll(name);
      const isArray = param.schema?.type === 'array';
      if (!isArray && values.length > 1) problems.push(`${name}: given ${values.length} times, but it is not an array`);
      const value = isArray ? values.map((v) => coerce(v, scalarType(param.schema.items))) : coerce(values[0]!, scalarType(param.schema));
      const validate = validators.get(name)!;
      if (!validate(value)) problems.push(`${name}=${values.join(',')}: ${(validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`.trim()).join('; ')}`);
    }
    return problems;
  };
}

/** The validator of a named component schema. */
export function componentValidator(file: string, name: string): ValidateFunction {
  const spec = loadSpec(file);
  return compile(spec, { $ref: `#/components/schemas/${name}` });
}

/** Throws with ajv's messages when data does not validate. */
export function expectValid(validate: ValidateFunction, data: unknown): void {
  if (!validate(data)) {
    const errors = (validate.errors ?? []).slice(0, 8).map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
    throw new Error(`does not match the vendor schema:\n  ${errors.join('\n  ')}\nbody: ${JSON.stringify(data).slice(0, 800)}`);
  }
}

/** What expectDocumentedAnswer needs of an emulator: its test-side `call`. */
interface Callable {
  call(method: string, path: string, options?: { body?: unknown }): Promise<{ status: number; body: unknown }>;
}

/**
 * Sends one request to the emulator and checks that it answers `status` with a body the vendor's
 * OpenAPI documents for that operation and status; resolves with the body.
 */
export async function expectDocumentedAnswer(emu: Callable, file: string, method: string, template: string, path: string, status: number, body?: unknown): Promise<any> {
  const res = await emu.call(method, path, body === undefined ? {} : { body });
  expect(res.status).toBe(status);
  expectValid(responseValidator(file, method, template, status), res.body);
  return res.body;
}
