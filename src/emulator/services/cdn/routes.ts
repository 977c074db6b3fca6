import { must } from '../../../errors.js';
import type { z } from 'zod';
import { defineCollection, type Created } from '../../collection.js';
import { isPlainObject, parseDate, parseIntStrict } from '../../format.js';
import { intQuery, type PagingStyle } from '../../paging.js';
import { fail, jsonReply } from '../../reply.js';
import type { RouteContext, ServiceRoute } from '../../router.js';
import type { CdnOriginGroupRecord, CdnResourceRecord, CdnRuleRecord, CdnSlice, CdnSourceRecord } from './index.js';
import { CDN_OPTION_FIELD_DEFAULTS, CDN_RESOURCE_OPTION_NAMES, CDN_RULE_OPTION_NAMES, cdnResourceOptionsSchema, cdnRuleOptionsSchema } from './options-schema.js';
import { CDN_PRODUCT } from './product.js';
import { afterSslChange, certificateRoutes, checkLetsEncryptAttach } from './ssl-data.js';

type Ctx = RouteContext<CdnSlice>;
type State = CdnSlice;
type Errors = Record<string, unknown>;

const PROTOCOLS = ['HTTP', 'HTTPS', 'MATCH'] as const;
const SECRET = 'SECRET_VALUE';
const DELETE_ACTIVE = 'Deletion of this instance is currently not possible as it is in an active state. Please deactivate it before attempting the deletion request again.';

/** 400 `{"errors": {...}}`, as the CDN API refuses a body. */
function refuse(errors: Errors): never {
  return fail(jsonReply(400, { errors }));
}

/** The body as a mapping (DRF's message for anything else). */
function bodyObject(ctx: Ctx): Record<string, unknown> {
  const body = ctx.body;
  if (body === undefined) return {};
  if (!isPlainObject(body)) refuse({ non_field_errors: [`Invalid data. Expected a dictionary, but got ${Array.isArray(body) ? 'list' : typeof body}.`] });
  return body;
}

/** A CDN datetime: microseconds and Z (2017-06-10T10:30:04.954354Z). */
function formatCdnDate(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

// ---------------------------------------------------------------- paging

/** Where a list's page links point: the path and the query as asked. */
interface ListScope {
  path: string;
  query: URLSearchParams;
}

/**
 * The CDN lists' paging (Django REST framework's LimitOffsetPagination without a default
 * limit): without `limit` the whole list as a plain array (`offset` ignored); with `limit`
 * (1..1000) and `offset` (≥ 0) `{count, next, previous, results}`, the links the request's
 * path and query with the page's `limit` and `offset`.
 */
function cdnPages<Scope extends ListScope>(): PagingStyle<Scope> {
  return {
    read(ctx, product) {
      const limit = intQuery(ctx, product, 'limit', { min: 1, max: 1000 });
      if (limit === undefined) return { offset: 0, limit: undefined };
      return { offset: intQuery(ctx, product, 'offset', { min: 0 }) ?? 0, limit };
    },
    answer({ items, total, window: { offset, limit }, scope }) {
      if (limit === undefined) return items;
      const link = (at: number): string => {
        const query = new URLSearchParams(scope.query);
        query.set('limit', String(limit));
        if (at > 0) query.set('offset', String(at));
        else query.delete('offset');
        return `${scope.path}?${query.toString()}`;
      };
      const next = offset + limit < total ? link(offset + limit) : null;
      const previous = offset > 0 ? link(Math.max(0, offset - limit)) : null;
      return { count: total, next, previous, results: items };
    },
  };
}

const listScope = (ctx: Ctx): ListScope => ({ path: ctx.path, query: ctx.query });

/** A boolean query filter (`true`/`false`, also `1`/`0`, any case), undefined when absent; 400 otherwise. */
function boolQuery(ctx: Ctx, name: string): boolean | undefined {
  const text = ctx.query.get(name);
  if (text === null || text === '') return undefined;
  const lower = text.toLowerCase();
  if (lower === 'true' || lower === '1') return true;
  if (lower === 'false' || lower === '0') return false;
  return refuse({ [name]: ['Must be a valid boolean.'] });
}

/** An integer query filter, undefined when absent; 400 otherwise. */
function intFilter(ctx: Ctx, name: string): number | undefined {
  const text = ctx.query.get(name);
  if (text === null || text === '') return undefined;
  return parseIntStrict(text) ?? refuse({ [name]: ['A valid integer is required.'] });
}

/** A datetime query filter, undefined when absent; 400 otherwise. */
function dateFilter(ctx: Ctx, name: string): number | undefined {
  const text = ctx.query.get(name);
  if (text === null || text === '') return undefined;
  const ms = parseDate(text);
  return Number.isNaN(ms) ? refuse({ [name]: ['Enter a valid date/time.'] }) : ms;
}

// ---------------------------------------------------------------- options

/**
 * The options of an answer, as the platform shows them: every option of the set, `null` when
 * not set, a set option with the spec's defaults for the fields the request left out.
 */
function renderOptions(options: Record<string, unknown>, names: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(names.map((name) => [name, options[name] ?? null]));
}

/** Errors of a zod check of options, nested as Django REST framework nests them: `{options: {gzipOn: {value: [...]}}}`. */
function optionErrors(issues: readonly z.core.$ZodIssue[]): Errors {
  const root: Errors = {};
  const put = (path: readonly PropertyKey[], message: string): void => {
    let at = root;
    for (const segment of path.slice(0, -1)) {
      const key = String(segment);
      const next = at[key];
      if (!isPlainObject(next)) at[key] = {};
      at = at[key] as Errors;
    }
    const last = String(path.at(-1));
    const list = Array.isArray(at[last]) ? (at[last] as string[]) : [];
    list.push(message);
    at[last] = list;
  };
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') for (const key of issue.keys) put([...issue.path, key], issue.path.length === 0 ? 'Unknown option.' : 'Unknown field.');
    else put(issue.path.length === 0 ? ['non_field_errors'] : issue.path, issue.message);
  }
  return { options: root };
}

/**
 * Checks a body's `options` against the set's schema (generated from cdn_api.yaml) and returns
 * them with the spec's field defaults filled in: 400 naming each bad option or field.
 */
function readOptions(value: unknown, set: 'resource' | 'rule'): Record<string, unknown> {
  const schema = set === 'resource' ? cdnResourceOptionsSchema() : cdnRuleOptionsSchema();
  const parsed = schema.safeParse(value);
  if (!parsed.success) refuse(optionErrors(parsed.error.issues));
  return withFieldDefaults(parsed.data as Record<string, unknown>);
}

/** Options with the spec's defaults for the fields each set option leaves out (null and absent options stay so). */
export function withFieldDefaults(options: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, option] of Object.entries(options)) {
    if (option === undefined) continue;
    out[name] = option === null ? null : { ...CDN_OPTION_FIELD_DEFAULTS[name], ...(option as object) };
  }
  return out;
}

/** Applies options to a record's set options: PUT replaces the whole set, PATCH each option given (null unsets it). */
function applyOptions(current: Record<string, unknown>, given: Record<string, unknown>, replace: boolean): Record<string, unknown> {
  const next: Record<string, unknown> = replace ? {} : { ...current };
  for (const [name, option] of Object.entries(given)) {
    if (option === null) delete next[name];
    else next[name] = option;
  }
  return next;
}

// ---------------------------------------------------------------- origin groups

/** A source as answered: a host `{source, ...}`; S3 and FastEdge `{origin_type, config, ...}` (S3 keys shown as SECRET_VALUE). */
function renderSource(s: CdnSourceRecord): Record<string, unknown> {
  const common = { backup: s.backup, enabled: s.enabled, tag: s.tag, host_header_override: s.host_header_override };
  if (s.origin_type === 'host') return { source: s.source, ...common };
  if (s.origin_type === 's3') {
    const config = { s3_region: null, s3_storage_hostname: null, s3_auth_type: 'awsSignatureV4', ...s.config, s3_access_key_id: SECRET, s3_secret_access_key: SECRET };
    return { origin_type: 's3', config, ...common };
  }
  return { origin_type: 'fastedge', config: { ...s.config }, ...common };
}

/** An origin group in the OriginGroupsResponse shape (None Auth, or the deprecated AWS Signature V4 with `auth`). */
export function renderOriginGroup(g: CdnOriginGroupRecord, state: State): Record<string, unknown> {
  const head = { id: g.id, name: g.name, use_next: g.use_next, proxy_next_upstream: [...g.proxy_next_upstream], auth_type: g.auth_type };
  const related = [...state.cdnResources.values()].some((r) => r.originGroup === g.id);
  if (g.auth_type === 'awsSignatureV4')
    return { ...head, auth: { ...g.auth, s3_access_key_id: SECRET, s3_secret_access_key: SECRET }, path: g.path, has_related_resources: related };
  return { ...head, sources: g.sources.map(renderSource), path: g.path, has_related_resources: related };
}

const S3_REQUIRED = ['s3_type', 's3_bucket_name', 's3_access_key_id', 's3_secret_access_key'] as const;

/** Checks S3 credentials (a source's `config` or the deprecated `auth`): their field errors, or none. */
function s3Errors(config: Record<string, unknown>): Errors {
  const errors: Errors = {};
  for (const field of S3_REQUIRED) if (typeof config[field] !== 'string' || config[field] === '') errors[field] = ['This field is required.'];
  if (typeof config.s3_type === 'string' && !['amazon', 'other'].includes(config.s3_type)) errors.s3_type = [`"${config.s3_type}" is not a valid choice.`];
  if (config.s3_type === 'amazon' && (typeof config.s3_region !== 'string' || config.s3_region === '')) errors.s3_region = ['This field is required.'];
  if (config.s3_type === 'other' && (typeof config.s3_storage_hostname !== 'string' || config.s3_storage_hostname === '')) errors.s3_storage_hostname = ['This field is required.'];
  return errors;
}

/**
 * An S3 source's `config` beyond what s3Errors checks: the keys' characters and lengths and the
 * bucket name's length as the vendor's S3Config states them (the platform's wording for these is
 * not documented; it follows AuthS3AccessKeyIdIsInvalidError's).
 */
function s3SourceConfigErrors(config: Record<string, unknown>): Errors {
  const errors = s3Errors(config);
  const id = config.s3_access_key_id;
  if (errors.s3_access_key_id === undefined && typeof id === 'string' && !/^[A-Za-z0-9:_-]{4,255}$/.test(id))
    errors.s3_access_key_id = ['Only 4-255 characters of Latin letters, numbers, colons, dashes and underscores are allowed.'];
  const secret = config.s3_secret_access_key;
  if (errors.s3_secret_access_key === undefined && typeof secret === 'string' && !/^[A-Za-z0-9+/:_-]{16,255}$/.test(secret))
    errors.s3_secret_access_key = ['Only 16-255 characters of Latin letters, numbers, pluses, slashes, dashes, colons and underscores are allowed.'];
  if (typeof config.s3_bucket_name === 'string' && config.s3_bucket_name.length > 256) errors.s3_bucket_name = ['Ensure this field has no more than 256 characters.'];
  return errors;
}

/** The `sources` of a body, checked as the platform checks them (in its order); the records. */
function readSources(value: unknown): CdnSourceRecord[] {
  if (!Array.isArray(value)) return refuse({ sources: ['Expected a list of items but got type "' + typeof value + '".'] });
  const empty = { source: ['Origin Group has to have at least one origin source.'] };
  if (value.length === 0) refuse(empty);
  const sources: CdnSourceRecord[] = [];
  const byKey: Errors = {};
  value.forEach((item, index) => {
    if (!isPlainObject(item)) refuse({ sources: [`Invalid data. Expected a dictionary, but got ${typeof item}.`] });
    const type = item.origin_type ?? (item.config !== undefined && item.source === undefined ? 's3' : 'host');
    if (type !== 'host' && type !== 's3' && type !== 'fastedge') refuse({ sources: { [`entry_${index}`]: { origin_type: [`"${String(type)}" is not a valid choice.`] } } });
    const flags: Errors = {};
    for (const flag of ['backup', 'enabled'] as const) if (item[flag] !== undefined && typeof item[flag] !== 'boolean') flags[flag] = ['Must be a valid boolean.'];
    if (item.tag !== undefined && (typeof item.tag !== 'string' || item.tag.length > 256)) flags.tag = ['Not a valid string of at most 256 characters.'];
    if (item.host_header_override !== undefined && item.host_header_override !== null && (typeof item.host_header_override !== 'string' || item.host_header_override.length > 255))
      flags.host_header_override = ['Not a valid string of at most 255 characters.'];
    let source: string | null = null;
    let config: Record<string, unknown> | null = null;
    if (type === 'host') {
      if (item.source === undefined || item.source === null || item.source === '') refuse({ source: ['This field is required.'] });
      if (typeof item.source !== 'string' || item.source.length > 255)
        refuse({ sources: { [String(item.source)]: { source: ['Ensure this field has no more than 255 characters.'] } } });
      source = item.source;
    } else {
      const key = `${type}_entry_${index}`;
      if (!isPlainObject(item.config)) refuse({ sources: { [key]: { config: ['This field is required.'] } } });
      const problems =
        type === 's3' ? s3SourceConfigErrors(item.config) : typeof item.config.app_id === 'string' && item.config.app_id !== '' ? {} : { app_id: ['This field is required.'] };
      if (Object.keys(problems).length > 0) refuse({ sources: { [key]: { config: problems } } });
      const bucket = item.config.s3_bucket_name;
      if (type === 's3' && sources.some((s) => s.origin_type === 's3' && s.config?.s3_bucket_name === bucket))
        refuse({ sources: { [String(bucket)]: { config: ['The S3 bucket name must be unique inside group of origins.'] } } });
      config = structuredClone(item.config);
    }
    const name = source ?? `${type}_entry_${index}`;
    if (Object.keys(flags).length > 0) byKey[name] = flags;
    if (source !== null && sources.some((s) => s.source === source))
      refuse({ sources: { [source]: { source: ['The field origin source must be unique inside group of origins.'] } } });
    sources.push({
      origin_type: type,
      source,
      config,
      backup: (item.backup as boolean | undefined) ?? false,
      enabled: (item.enabled as boolean | undefined) ?? true,
      tag: (item.tag as string | undefined) ?? 'default',
      host_header_override: (item.host_header_override as string | null | undefined) ?? null,
    });
  });
  if (Object.keys(byKey).length > 0) refuse({ sources: byKey });
  const head = sources[0] ?? refuse(empty);
  const first = head.source ?? `${head.origin_type}_entry_0`;
  if (sources.every((s) => s.backup)) refuse({ sources: { [first]: { backup: ['You cannot specify all origin sources as reserve (backup). Add non-reserve origins.'] } } });
  if (!sources.some((s) => s.enabled)) refuse({ sources: { [first]: { enabled: ['Origin Group must have at least one active origin sources.'] } } });
  return sources;
}

type GroupWrite = Partial<Pick<CdnOriginGroupRecord, 'name' | 'use_next' | 'proxy_next_upstream' | 'auth_type' | 'auth' | 'sources' | 'path'>>;

/**
 * The body of a POST (`create`), PUT (`put`) or PATCH (`patch`) of an origin group, checked as
 * the platform does: `name` (required but for PATCH, at most 255 characters, unique in the
 * account), `use_next` (required by PUT), `proxy_next_upstream`, `sources` (required with
 * `auth_type: none` but for PATCH) or the deprecated `auth`; unknown fields are ignored.
 */
function readGroupWrite(ctx: Ctx, mode: 'create' | 'put' | 'patch', self: CdnOriginGroupRecord | undefined): GroupWrite {
  const body = bodyObject(ctx);
  const write: GroupWrite = {};
  const errors: Errors = {};
  if (body.name === undefined) {
    if (mode !== 'patch') errors.name = ['This field is required.'];
  } else if (typeof body.name !== 'string' || body.name === '') errors.name = ['This field may not be blank.'];
  else if (body.name.length > 255) errors.name = ['Ensure this field has no more than 255 characters.'];
  else if ([...ctx.state.cdnOriginGroups.values()].some((g) => g.name === body.name && g !== self)) errors.name = ['Origin Group name should be unique.'];
  else write.name = body.name;
  if (body.use_next === undefined) {
    if (mode === 'put') errors.use_next = ['This field is required.'];
  } else if (typeof body.use_next !== 'boolean') errors.use_next = ['Must be a valid boolean.'];
  else write.use_next = body.use_next;
  if (body.proxy_next_upstream !== undefined) {
    if (!Array.isArray(body.proxy_next_upstream) || !body.proxy_next_upstream.every((x) => typeof x === 'string')) errors.proxy_next_upstream = ['Expected a list of strings.'];
    else write.proxy_next_upstream = [...(body.proxy_next_upstream as string[])];
  }
  if (body.path !== undefined) {
    if (typeof body.path !== 'string') errors.path = ['Not a valid string.'];
    else write.path = body.path;
  }
  if (Object.keys(errors).length > 0) refuse(errors);
  const authType = body.auth_type ?? (mode === 'patch' ? undefined : 'none');
  if (authType !== undefined && authType !== 'none' && authType !== 'awsSignatureV4') refuse({ auth_type: [`"${String(authType)}" is not a valid choice.`] });
  if (authType === 'awsSignatureV4' || (authType === undefined && self?.auth_type === 'awsSignatureV4')) {
    if (body.auth === undefined && (mode !== 'patch' || self?.auth === null)) refuse({ auth: ['This field is required.'] });
    if (body.auth !== undefined) {
      if (!isPlainObject(body.auth)) refuse({ auth: ['Invalid data. Expected a dictionary.'] });
      const problems = s3Errors(body.auth);
      if (Object.keys(problems).length > 0) refuse({ auth: problems });
      write.auth = structuredClone(body.auth);
    }
    write.auth_type = 'awsSignatureV4';
    write.sources = [];
  } else {
    if (body.auth !== undefined && body.auth !== null) refuse({ auth: ['Authentication is not allowed with the none auth type.'] });
    if (authType === 'none') {
      write.auth_type = 'none';
      write.auth = null;
    }
    if (body.sources !== undefined) write.sources = readSources(body.sources);
    else if (mode !== 'patch' || (authType === 'none' && self?.auth_type !== 'none')) refuse({ source: ['Origin Group has to have at least one origin source.'] });
  }
  return write;
}

function applyGroupWrite(group: CdnOriginGroupRecord, write: GroupWrite): Record<string, unknown> {
  const changed: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(write) as [keyof GroupWrite, unknown][]) {
    if (JSON.stringify(group[field]) === JSON.stringify(value)) continue;
    // `value` was read and checked for this field by readGroupWrite.
    (group as unknown as Record<string, unknown>)[field] = value;
    changed[field] = field === 'auth' || field === 'sources' ? '(changed)' : value;
  }
  return changed;
}

function buildGroup(ctx: Ctx): Created<CdnOriginGroupRecord> {
  const write = readGroupWrite(ctx, 'create', undefined);
  const group: CdnOriginGroupRecord = {
    id: ctx.state.cdnNextIds.originGroup++,
    name: must(write.name, 'write.name'),
    use_next: write.use_next ?? false,
    proxy_next_upstream: write.proxy_next_upstream ?? ['error', 'timeout'],
    auth_type: write.auth_type ?? 'none',
    auth: write.auth ?? null,
    sources: write.sources ?? [],
    path: write.path ?? '',
  };
  return { record: group, logged: { name: group.name } };
}

/** Group list filters: `name` (exact), `sources` (a source of the group, exact), `has_related_resources`. */
interface GroupQuery {
  name: string | undefined;
  sources: string | undefined;
  related: boolean | undefined;
}

const originGroups = defineCollection<State, CdnOriginGroupRecord, ListScope, GroupQuery, 'integer'>({
  product: CDN_PRODUCT,
  path: '/cdn/origin_groups',
  idParam: 'origin_group_id',
  idSyntax: 'integer',
  noun: 'Origin group',
  scope: listScope,
  store: (ctx) => ctx.state.cdnOriginGroups,
  idOf: (g) => g.id,
  mutationKind: 'cdn_origin_group',
  list: {
    paging: cdnPages(),
    queryFirst: true,
    query: (ctx) => ({ name: ctx.query.get('name') || undefined, sources: ctx.query.get('sources') || undefined, related: boolQuery(ctx, 'has_related_resources') }),
    where(g, q, ctx) {
      if (q.name !== undefined && g.name !== q.name) return false;
      if (q.sources !== undefined && !g.sources.some((s) => s.source === q.sources)) return false;
      if (q.related !== undefined && [...ctx.state.cdnResources.values()].some((r) => r.originGroup === g.id) !== q.related) return false;
      return true;
    },
    order: (a, b) => a.id - b.id,
    render: (g, ctx) => renderOriginGroup(g, ctx.state),
  },
  get: (g, ctx) => renderOriginGroup(g, ctx.state),
  create: { build: buildGroup, answer: (g, ctx) => jsonReply(201, renderOriginGroup(g, ctx.state)) },
  updates: [
    { method: 'PUT', change: (ctx, g) => applyGroupWrite(g, readGroupWrite(ctx, 'put', g)), answer: (g, ctx) => jsonReply(200, renderOriginGroup(g, ctx.state)) },
    { method: 'PATCH', change: (ctx, g) => applyGroupWrite(g, readGroupWrite(ctx, 'patch', g)), answer: (g, ctx) => jsonReply(200, renderOriginGroup(g, ctx.state)) },
  ],
  delete: {
    remove(ctx, g) {
      // Refused while a resource or a rule uses the group: 400 {"name": [...]} (no "errors" wrapper, as documented).
      if ([...ctx.state.cdnResources.values()].some((r) => r.originGroup === g.id)) fail(jsonReply(400, { name: ['There are resources using this group'] }));
      if ([...ctx.state.cdnRules.values()].some((r) => r.originGroup === g.id)) fail(jsonReply(400, { name: ['There are rules using this group'] }));
      ctx.state.cdnOriginGroups.delete(g.id);
    },
  },
});

// ---------------------------------------------------------------- resources

/** A CDN resource in the ResourceResponse shape: every field, every option (null when not set). */
export function renderResource(r: CdnResourceRecord, state: State): Record<string, unknown> {
  return {
    id: r.id,
    cname: r.cname,
    active: r.active,
    enabled: true,
    status: r.status,
    deleted: false,
    client: r.client,
    name: r.name,
    description: r.description,
    created: formatCdnDate(r.created),
    updated: formatCdnDate(r.updated),
    originGroup: r.originGroup,
    originGroup_name: state.cdnOriginGroups.get(r.originGroup)?.name ?? '',
    originProtocol: r.originProtocol,
    secondaryHostnames: [...r.secondaryHostnames],
    shielded: false,
    shield_dc: null,
    shield_enabled: false,
    shield_routing_map: null,
    sslEnabled: r.sslEnabled,
    sslData: r.sslData,
    proxy_ssl_enabled: r.proxy_ssl_enabled,
    proxy_ssl_ca: r.proxy_ssl_ca,
    proxy_ssl_data: r.proxy_ssl_data,
    preset_applied: false,
    vp_enabled: false,
    full_custom_enabled: false,
    can_purge_by_urls: true,
    suspend_date: null,
    suspended: r.status === 'suspended',
    primary_resource: null,
    is_primary: null,
    waap_domain_id: null,
    rules: [...state.cdnRules.values()].filter((rule) => rule.resource === r.id).map((rule) => renderRule(rule, state)),
    options: renderOptions(r.options, CDN_RESOURCE_OPTION_NAMES),
  };
}

type ResourceWrite = Partial<Omit<CdnResourceRecord, 'id' | 'cname' | 'client' | 'created' | 'updated' | 'status'>>;

const HOSTNAME = /^(?=.{1,253}$)(\*\.)?(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/i;

/** The hostnames another resource already holds (its cname or a secondary hostname). */
function hostnameTaken(ctx: Ctx, hostname: string, self: CdnResourceRecord | undefined): boolean {
  const lower = hostname.toLowerCase();
  return [...ctx.state.cdnResources.values()].some((r) => r !== self && (r.cname.toLowerCase() === lower || r.secondaryHostnames.some((h) => h.toLowerCase() === lower)));
}

/**
 * The writable fields of a POST, PUT or PATCH body of a CDN resource (CreateResource,
 * ChangeResource, PatchResource), each checked as the spec types it; `originGroup` must name an
 * origin group of the account, secondary hostnames must be free, `sslData` needs `sslEnabled`.
 */
function readResourceWrite(ctx: Ctx, body: Record<string, unknown>, self: CdnResourceRecord | undefined): ResourceWrite {
  const write: ResourceWrite = {};
  const errors: Errors = {};
  const bool = (field: 'active' | 'sslEnabled' | 'proxy_ssl_enabled'): void => {
    const value = body[field];
    if (value === undefined) return;
    if (typeof value !== 'boolean') errors[field] = ['Must be a valid boolean.'];
    else write[field] = value;
  };
  const optionalId = (field: 'sslData' | 'proxy_ssl_ca' | 'proxy_ssl_data'): void => {
    const value = body[field];
    if (value === undefined) return;
    if (value !== null && (!Number.isInteger(value) || (value as number) < 1)) errors[field] = ['A valid integer is required.'];
    else write[field] = value as number | null;
  };
  bool('active');
  bool('sslEnabled');
  bool('proxy_ssl_enabled');
  optionalId('sslData');
  optionalId('proxy_ssl_ca');
  optionalId('proxy_ssl_data');
  if (body.name !== undefined) {
    if (body.name !== null && typeof body.name !== 'string') errors.name = ['Not a valid string.'];
    else write.name = body.name;
  }
  if (body.description !== undefined) {
    if (typeof body.description !== 'string') errors.description = ['Not a valid string.'];
    else write.description = body.description;
  }
  if (body.originProtocol !== undefined) {
    if (!(PROTOCOLS as readonly unknown[]).includes(body.originProtocol)) errors.originProtocol = [`"${String(body.originProtocol)}" is not a valid choice.`];
    else write.originProtocol = body.originProtocol as CdnResourceRecord['originProtocol'];
  }
  if (body.originGroup !== undefined) {
    if (!Number.isInteger(body.originGroup)) errors.originGroup = ['A valid integer is required.'];
    else if (!ctx.state.cdnOriginGroups.has(body.originGroup as number)) errors.originGroup = [`Invalid pk "${String(body.originGroup)}" - object does not exist.`];
    else write.originGroup = body.originGroup as number;
  }
  if (body.secondaryHostnames !== undefined) {
    const hosts = body.secondaryHostnames;
    if (!Array.isArray(hosts) || !hosts.every((h) => typeof h === 'string')) errors.secondaryHostnames = ['Expected a list of strings.'];
    else {
      const bad = hosts.find((h) => !HOSTNAME.test(h));
      if (bad !== undefined) errors.secondaryHostnames = [`Enter a valid domain name: ${bad}.`];
      else write.secondaryHostnames = [...new Set(hosts as string[])];
    }
  }
  if (Object.keys(errors).length > 0) refuse(errors);
  const taken = write.secondaryHostnames?.find((h) => hostnameTaken(ctx, h, self) || h.toLowerCase() === (self?.cname ?? String(body.cname)).toLowerCase());
  if (taken !== undefined) refuse({ secondaryHostnames: `Hostname ${taken} already exists.` });
  const sslEnabled = write.sslEnabled ?? self?.sslEnabled ?? false;
  const sslData = write.sslData !== undefined ? write.sslData : (self?.sslData ?? null);
  if (sslData !== null && !sslEnabled) refuse({ sslData: ['SSL certificate can be used only with "sslEnabled": true.'] });
  checkLetsEncryptAttach(ctx, self, write.sslData, [self?.cname ?? String(body.cname), ...(write.secondaryHostnames ?? self?.secondaryHostnames ?? [])]);
  if (body.options !== undefined) write.options = readOptions(body.options, 'resource');
  return write;
}

/** Applies a checked write to a resource; what changed (options by name). */
function applyResourceWrite(ctx: Ctx, r: CdnResourceRecord, write: ResourceWrite, replaceOptions: boolean): Record<string, unknown> {
  const changed: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(write) as [keyof ResourceWrite, unknown][]) {
    if (field === 'options') {
      const next = applyOptions(r.options, value as Record<string, unknown>, replaceOptions);
      if (JSON.stringify(next) !== JSON.stringify(r.options)) {
        changed.options = Object.keys(next)
          .concat(Object.keys(r.options))
          .filter((name, i, all) => all.indexOf(name) === i && JSON.stringify(next[name]) !== JSON.stringify(r.options[name]));
        r.options = next;
      }
      continue;
    }
    if (JSON.stringify(r[field]) === JSON.stringify(value)) continue;
    // `value` was read and checked for this field by the resource write's reader.
    (r as unknown as Record<string, unknown>)[field] = value;
    changed[field] = value;
  }
  if (Object.keys(changed).length > 0) r.updated = ctx.now;
  return changed;
}

/** A new origin group for a resource created with `origin`: named after the cname (`-N` added while taken), the origin its one source. */
function originGroupFor(ctx: Ctx, cname: string, origin: unknown): number {
  if (typeof origin !== 'string' || origin === '' || origin.length > 255)
    refuse({ origin: ['Enter a valid origin: an IP address or a domain name, with a port if not the default.'] });
  let name = cname;
  for (let n = 2; [...ctx.state.cdnOriginGroups.values()].some((g) => g.name === name); n += 1) name = `${cname}-${n}`;
  const id = ctx.state.cdnNextIds.originGroup++;
  const source: CdnSourceRecord = { origin_type: 'host', source: origin, config: null, backup: false, enabled: true, tag: 'default', host_header_override: null };
  ctx.state.cdnOriginGroups.set(id, { id, name, use_next: false, proxy_next_upstream: ['error', 'timeout'], auth_type: 'none', auth: null, sources: [source], path: '' });
  ctx.state.recordMutation(ctx.now, 'cdn_origin_group', id, 'create', { name });
  return id;
}

function buildResource(ctx: Ctx): Created<CdnResourceRecord> {
  const body = bodyObject(ctx);
  const cname = body.cname;
  if (cname === undefined || cname === null || cname === '') refuse({ cname: ['This field is required.'] });
  if (typeof cname !== 'string' || !HOSTNAME.test(cname)) refuse({ cname: ['Enter a valid domain name.'] });
  if (hostnameTaken(ctx, cname, undefined)) refuse({ cname: [`CNAME ${cname} already exists. Try another CNAME or contact support.`] });
  if ((body.origin === undefined) === (body.originGroup === undefined)) refuse({ originGroup: ['Exactly one of origin or originGroup must be provided.'] });
  const write = readResourceWrite(ctx, body, undefined);
  const originGroup = write.originGroup ?? originGroupFor(ctx, cname, body.origin);
  const resource: CdnResourceRecord = {
    id: ctx.state.cdnNextIds.resource++,
    cname,
    active: write.active ?? true,
    name: write.name ?? null,
    description: write.description ?? '',
    originGroup,
    originProtocol: write.originProtocol ?? 'HTTP',
    secondaryHostnames: write.secondaryHostnames ?? [],
    sslEnabled: write.sslEnabled ?? false,
    sslData: write.sslData ?? null,
    proxy_ssl_enabled: write.proxy_ssl_enabled ?? false,
    proxy_ssl_ca: write.proxy_ssl_ca ?? null,
    proxy_ssl_data: write.proxy_ssl_data ?? null,
    status: 'active',
    client: ctx.state.defaults.client_id,
    created: ctx.now,
    updated: ctx.now,
    options: applyOptions({}, write.options ?? {}, true),
  };
  afterSslChange(ctx, resource, null);
  return { record: resource, logged: { cname, originGroup } };
}

/** Resource list filters (get-cdn-resources-list), each as documented. */
interface ResourceQuery {
  deleted?: boolean | undefined;
  enabled?: boolean | undefined;
  originGroup?: number | undefined;
  sslEnabled?: boolean | undefined;
  sslData?: number | undefined;
  sslDataIn?: number[] | undefined;
  minCreated?: number | undefined;
  maxCreated?: number | undefined;
  cname?: string | undefined;
  secondaryHostname?: string | undefined;
  vpEnabled?: boolean | undefined;
  rules?: string | undefined;
  shielded?: boolean | undefined;
  shieldDc?: string | undefined;
  suspend?: boolean | undefined;
  status?: string | undefined;
}

function readResourceQuery(ctx: Ctx): ResourceQuery {
  const text = (name: string): string | undefined => ctx.query.get(name) || undefined;
  const status = text('status');
  if (status !== undefined && !['active', 'processed', 'suspended', 'deleted'].includes(status))
    refuse({ status: [`Select a valid choice. ${status} is not one of the available choices.`] });
  const sslDataIn = text('sslData_in')
    ?.split(',')
    .map((part) => parseIntStrict(part.trim()) ?? refuse({ sslData_in: ['Enter a whole number.'] }));
  return {
    deleted: boolQuery(ctx, 'deleted'),
    enabled: boolQuery(ctx, 'enabled'),
    originGroup: intFilter(ctx, 'originGroup'),
    sslEnabled: boolQuery(ctx, 'sslEnabled'),
    sslData: intFilter(ctx, 'sslData'),
    sslDataIn,
    minCreated: dateFilter(ctx, 'min_created'),
    maxCreated: dateFilter(ctx, 'max_created'),
    cname: text('cname'),
    secondaryHostname: text('secondaryHostnames'),
    vpEnabled: boolQuery(ctx, 'vp_enabled'),
    rules: text('rules'),
    shielded: boolQuery(ctx, 'shielded'),
    shieldDc: text('shield_dc'),
    suspend: boolQuery(ctx, 'suspend'),
    status,
  };
}

function resourceMatches(r: CdnResourceRecord, q: ResourceQuery, ctx: Ctx): boolean {
  // Deleted resources are gone from the emulator; an enabled (not blocked by the platform) one is every resource; none is streaming, shielded or due for suspension.
  if (q.deleted === true || q.enabled === false || q.vpEnabled === true || q.shielded === true || q.suspend === true || q.shieldDc !== undefined) return false;
  if (q.status !== undefined && r.status !== q.status) return false;
  if (q.originGroup !== undefined && r.originGroup !== q.originGroup) return false;
  if (q.sslEnabled !== undefined && r.sslEnabled !== q.sslEnabled) return false;
  if (q.sslData !== undefined && r.sslData !== q.sslData) return false;
  if (q.sslDataIn !== undefined && (r.sslData === null || !q.sslDataIn.includes(r.sslData))) return false;
  if (q.minCreated !== undefined && r.created < q.minCreated) return false;
  if (q.maxCreated !== undefined && r.created > q.maxCreated) return false;
  if (q.cname !== undefined && r.cname.toLowerCase() !== q.cname.toLowerCase()) return false;
  const secondary = q.secondaryHostname?.toLowerCase();
  if (secondary !== undefined && !r.secondaryHostnames.some((h) => h.toLowerCase() === secondary)) return false;
  if (q.rules !== undefined && ![...ctx.state.cdnRules.values()].some((rule) => rule.resource === r.id && (rule.name === q.rules || rule.rule === q.rules))) return false;
  return true;
}

const resources = defineCollection<State, CdnResourceRecord, ListScope, ResourceQuery, 'integer'>({
  product: CDN_PRODUCT,
  path: '/cdn/resources',
  idParam: 'resource_id',
  idSyntax: 'integer',
  noun: 'CDN resource',
  scope: listScope,
  store: (ctx) => ctx.state.cdnResources,
  idOf: (r) => r.id,
  mutationKind: 'cdn_resource',
  list: { paging: cdnPages(), queryFirst: true, query: readResourceQuery, where: resourceMatches, order: (a, b) => a.id - b.id, render: (r, ctx) => renderResource(r, ctx.state) },
  get: (r, ctx) => renderResource(r, ctx.state),
  create: { build: buildResource, answer: (r, ctx) => jsonReply(201, renderResource(r, ctx.state)) },
  updates: [
    {
      method: 'PUT',
      change(ctx, r) {
        const body = bodyObject(ctx);
        if (body.originGroup === undefined) refuse({ originGroup: ['This field is required.'] });
        const previous = r.sslData;
        const changed = applyResourceWrite(ctx, r, readResourceWrite(ctx, body, r), true);
        afterSslChange(ctx, r, previous);
        return changed;
      },
      answer: (r, ctx) => jsonReply(200, renderResource(r, ctx.state)),
    },
    {
      method: 'PATCH',
      // Also issue-lets-encrypt-certificate (AttachLECert) and revoke-lets-encrypt-certificate (RevokeLECert).
      change(ctx, r) {
        const previous = r.sslData;
        const changed = applyResourceWrite(ctx, r, readResourceWrite(ctx, bodyObject(ctx), r), false);
        afterSslChange(ctx, r, previous);
        return changed;
      },
      answer: (r, ctx) => jsonReply(200, renderResource(r, ctx.state)),
    },
  ],
  delete: {
    remove(ctx, r) {
      if (r.active) fail(jsonReply(400, { errors: [DELETE_ACTIVE] }));
      afterSslChange(ctx, { ...r, sslData: null }, r.sslData);
      // Its rules go with it.
      for (const rule of [...ctx.state.cdnRules.values()]) if (rule.resource === r.id) ctx.state.cdnRules.delete(rule.id);
      ctx.state.cdnResources.delete(r.id);
    },
  },
});

// ---------------------------------------------------------------- rules

/** A rule in the RuleResponse shape; `originProtocol` is the override, else its resource's. */
export function renderRule(rule: CdnRuleRecord, state: State): Record<string, unknown> {
  return {
    id: rule.id,
    name: rule.name,
    active: rule.active,
    deleted: false,
    originGroup: rule.originGroup,
    rule: rule.rule,
    ruleType: rule.ruleType,
    weight: rule.weight,
    originProtocol: rule.overrideOriginProtocol ?? state.cdnResources.get(rule.resource)?.originProtocol ?? 'HTTP',
    overrideOriginProtocol: rule.overrideOriginProtocol,
    preset_applied: false,
    primary_rule: null,
    options: renderOptions(rule.options, CDN_RULE_OPTION_NAMES),
  };
}

type RuleWrite = Partial<Omit<CdnRuleRecord, 'id' | 'resource'>>;

/** The fields of a rule's POST, PUT or PATCH body (CreateRule, ChangeRule, PatchRule) with the platform's checks. */
function readRuleWrite(ctx: Ctx, resourceId: number, required: readonly string[], self: CdnRuleRecord | undefined): RuleWrite {
  const body = bodyObject(ctx);
  const errors: Errors = {};
  for (const field of required) if (body[field] === undefined) errors[field] = ['This field is required.'];
  if (Object.keys(errors).length > 0) refuse(errors);
  const write: RuleWrite = {};
  if (body.name !== undefined) {
    if (typeof body.name !== 'string' || body.name === '' || body.name.length > 255) errors.name = ['Enter a name of 1 to 255 characters.'];
    else write.name = body.name;
  }
  if (body.rule !== undefined) {
    if (typeof body.rule !== 'string' || body.rule.length > 300) errors.rule = ['Ensure this field has no more than 300 characters.'];
    else write.rule = body.rule;
  }
  if (body.ruleType !== undefined) {
    if (body.ruleType !== 0 && body.ruleType !== 1) errors.ruleType = [`"${String(body.ruleType)}" is not a valid choice.`];
    else write.ruleType = body.ruleType;
  }
  if (body.active !== undefined) {
    if (typeof body.active !== 'boolean') errors.active = ['Must be a valid boolean.'];
    else write.active = body.active;
  }
  if (body.weight !== undefined) {
    if (!Number.isInteger(body.weight) || (body.weight as number) < 1 || (body.weight as number) > 2147483647) errors.weight = ['Ensure this value is between 1 and 2147483647.'];
    else write.weight = body.weight as number;
  }
  if (body.overrideOriginProtocol !== undefined) {
    if (body.overrideOriginProtocol !== null && !(PROTOCOLS as readonly unknown[]).includes(body.overrideOriginProtocol))
      errors.overrideOriginProtocol = [`"${String(body.overrideOriginProtocol)}" is not a valid choice.`];
    else write.overrideOriginProtocol = body.overrideOriginProtocol as CdnRuleRecord['overrideOriginProtocol'];
  }
  if (body.originGroup !== undefined) {
    if (body.originGroup !== null && !Number.isInteger(body.originGroup)) errors.originGroup = ['A valid integer is required.'];
    else if (body.originGroup !== null && !ctx.state.cdnOriginGroups.has(body.originGroup as number))
      errors.originGroup = [`Invalid pk "${String(body.originGroup)}" - object does not exist.`];
    else write.originGroup = body.originGroup as number | null;
  }
  if (Object.keys(errors).length > 0) refuse(errors);
  const pattern = write.rule ?? self?.rule;
  const type = write.ruleType ?? self?.ruleType ?? 0;
  if (write.rule !== undefined || write.ruleType !== undefined) {
    let valid = pattern !== undefined && (type === 1 || pattern.startsWith('/') || pattern.startsWith('^/'));
    try {
      if (valid && pattern !== undefined) new RegExp(pattern);
    } catch {
      valid = false;
    }
    if (!valid) refuse({ rule: ['Rule should be a valid regular expression - check it via https://regex101.com.'] });
  }
  const siblings = [...ctx.state.cdnRules.values()].filter((r) => r.resource === resourceId && r !== self);
  if (write.name !== undefined && siblings.some((r) => r.name === write.name)) refuse({ name: ['This field should be unique.'] });
  if (write.rule !== undefined && siblings.some((r) => r.rule === write.rule)) refuse({ rule: ['The field rule_string must be unique.'] });
  if (body.options !== undefined) write.options = readOptions(body.options, 'rule');
  return write;
}

function applyRuleWrite(rule: CdnRuleRecord, write: RuleWrite, replaceOptions: boolean): Record<string, unknown> {
  const changed: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(write) as [keyof RuleWrite, unknown][]) {
    const next = field === 'options' ? applyOptions(rule.options, value as Record<string, unknown>, replaceOptions) : value;
    if (JSON.stringify(rule[field]) === JSON.stringify(next)) continue;
    // `next` was read and checked for this field by readRuleWrite.
    (rule as unknown as Record<string, unknown>)[field] = next;
    changed[field] = field === 'options' ? Object.keys(next as object) : next;
  }
  return changed;
}

/** A rule list's scope: its resource (404 when the account has none with that id) and the page links' base. */
interface RuleScope extends ListScope {
  resource: number;
}

function ruleScope(ctx: Ctx): RuleScope {
  const id = parseIntStrict(ctx.params.resource_id);
  if (id === undefined || !ctx.state.cdnResources.has(id)) fail(CDN_PRODUCT.notFound('CDN resource', ctx.requestId));
  return { resource: id, ...listScope(ctx) };
}

const rules = defineCollection<State, CdnRuleRecord, RuleScope, undefined, 'integer'>({
  product: CDN_PRODUCT,
  path: '/cdn/resources/{resource_id}/rules',
  idParam: 'rule_id',
  idSyntax: 'integer',
  noun: 'Rule',
  scope: ruleScope,
  store: (ctx) => ctx.state.cdnRules,
  inScope: (rule, scope) => rule.resource === scope.resource,
  idOf: (rule) => rule.id,
  mutationKind: 'cdn_rule',
  list: { paging: cdnPages(), order: (a, b) => a.id - b.id, render: (rule, ctx) => renderRule(rule, ctx.state) },
  get: (rule, ctx) => renderRule(rule, ctx.state),
  create: {
    build(ctx, scope) {
      const write = readRuleWrite(ctx, scope.resource, ['name', 'rule', 'ruleType'], undefined);
      const rule: CdnRuleRecord = {
        id: ctx.state.cdnNextIds.rule++,
        resource: scope.resource,
        name: must(write.name, 'write.name'),
        active: write.active ?? true,
        rule: must(write.rule, 'write.rule'),
        ruleType: must(write.ruleType, 'write.ruleType'),
        weight: write.weight ?? 1,
        originGroup: write.originGroup ?? null,
        overrideOriginProtocol: write.overrideOriginProtocol ?? null,
        options: applyOptions({}, write.options ?? {}, true),
      };
      return { record: rule, logged: { resource: rule.resource, name: rule.name, rule: rule.rule } };
    },
    answer: (rule, ctx) => jsonReply(201, renderRule(rule, ctx.state)),
  },
  updates: [
    {
      method: 'PUT',
      change: (ctx, rule, scope) => applyRuleWrite(rule, readRuleWrite(ctx, scope.resource, ['rule', 'ruleType'], rule), true),
      answer: (rule, ctx) => jsonReply(200, renderRule(rule, ctx.state)),
    },
    {
      method: 'PATCH',
      change: (ctx, rule, scope) => applyRuleWrite(rule, readRuleWrite(ctx, scope.resource, [], rule), false),
      answer: (rule, ctx) => jsonReply(200, renderRule(rule, ctx.state)),
    },
  ],
  delete: {
    remove(ctx, rule) {
      if (rule.active) fail(jsonReply(400, { errors: [DELETE_ACTIVE] }));
      ctx.state.cdnRules.delete(rule.id);
    },
  },
});

/** The CDN routes (cdn_api.yaml): origin groups, CDN resources, rules. */
export const cdnRoutes: ServiceRoute<CdnSlice>[] = [...originGroups.routes, ...resources.routes, ...rules.routes, ...certificateRoutes(cdnPages())];
