import { defineCollection, type Created } from '../../collection.js';
import { isPlainObject, parseDate } from '../../format.js';
import type { PagingStyle } from '../../paging.js';
import { fail, jsonReply } from '../../reply.js';
import type { RouteContext, ServiceRoute } from '../../router.js';
import type { CdnCertificateRecord, CdnResourceRecord, CdnSlice } from './index.js';
import { CDN_PRODUCT } from './product.js';

type Ctx = RouteContext<CdnSlice>;
type Errors = Record<string, unknown>;

/** How long an issued Let's Encrypt certificate is valid. */
const LE_VALIDITY_MS = 90 * 24 * 3600 * 1000;

/** The platform's messages (cdn_api.yaml's examples). */
export const LE_ALREADY_ATTACHED = "You cannot attach this Let's Encrypt SSL certificate because it is already attached to another resource.";
export const LE_WILDCARD = "We cannot issue a Let's Encrypt certificate for a resource with a wildcard cname.";

function refuse(errors: Errors): never {
  return fail(jsonReply(400, { errors }));
}

/** A CDN datetime: microseconds and Z. */
function cdnDate(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** The host names of a resource a Let's Encrypt certificate covers. */
function hostsOf(r: CdnResourceRecord): string[] {
  return [r.cname, ...r.secondaryHostnames];
}

/**
 * Why issuing for these hosts fails, or null: the emulator's stand-in for a domain that does not
 * point at the CDN is a name under `.invalid` (RFC 2606: never resolves), which Let's Encrypt's
 * validation cannot reach.
 */
function issuingFailure(hosts: readonly string[]): { error: string; details: string } | null {
  const host = hosts.find((h) => /\.invalid$/i.test(h));
  return host === undefined ? null : { error: 'DNSProblem', details: `DNS problem: NXDOMAIN looking up A for ${host} - check that a DNS record exists for this domain` };
}

/** Whether an issuing attempt is over at `now` (the emulator's task duration after it started). */
function issuingDone(cert: CdnCertificateRecord, now: number): cert is CdnCertificateRecord & { issuing: NonNullable<CdnCertificateRecord['issuing']> } {
  return cert.issuing !== null && now >= cert.issuing.started + cert.issuing.durationMs;
}

/** The resources using a certificate (their `sslData`). */
function usersOf(ctx: Pick<Ctx, 'state'>, id: number): CdnResourceRecord[] {
  return [...ctx.state.cdnResources.values()].filter((r) => r.sslData === id);
}

/** A certificate in the GetSSLAnswer shape; an automated one shows its subject once issued. */
export function renderCertificate(cert: CdnCertificateRecord, ctx: Pick<Ctx, 'state' | 'now'>): Record<string, unknown> {
  const done = issuingDone(cert, ctx.now) ? cert.issuing : undefined;
  const issued = cert.automated && done !== undefined && done.failure === null;
  const resource = cert.issuing === null ? undefined : ctx.state.cdnResources.get(cert.issuing.resource);
  const subject = cert.automated ? (issued && resource ? resource.cname : '') : cert.subject;
  const notBefore = cert.automated ? (issued ? done.started + done.durationMs : null) : cert.created;
  return {
    id: cert.id,
    deleted: false,
    cert_issuer: cert.automated ? (issued ? "Let's Encrypt" : '') : cert.issuer,
    cert_subject_cn: subject,
    cert_subject_alt: cert.automated ? (issued && resource ? hostsOf(resource).join(',') : '') : cert.subject,
    validity_not_before: notBefore === null ? '' : new Date(notBefore).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    validity_not_after: notBefore === null ? '' : new Date(notBefore + LE_VALIDITY_MS).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    hasRelatedResources: usersOf(ctx, cert.id).length > 0,
    name: cert.name,
    automated: cert.automated,
  };
}

/**
 * A POST /cdn/sslData body (AddSSL): a Let's Encrypt certificate `{name, automated: true}`, or an
 * own certificate `{name, sslCertificate, sslPrivateKey, validate_root_ca?}`; the name unique.
 */
function buildCertificate(ctx: Ctx): Created<CdnCertificateRecord> {
  const body = ctx.body;
  if (!isPlainObject(body)) return refuse({ non_field_errors: ['Invalid data. Expected a dictionary, but got list.'] });
  const errors: Errors = {};
  if (typeof body.name !== 'string' || body.name.trim() === '') errors.name = ['This field is required.'];
  else if ([...ctx.state.cdnCertificates.values()].some((c) => c.name === body.name)) errors.name = ['SSL certificate with this name already exists.'];
  const automated = body.automated === true;
  if (body.automated !== undefined && typeof body.automated !== 'boolean') errors.automated = ['Must be a valid boolean.'];
  if (!automated) {
    for (const field of ['sslCertificate', 'sslPrivateKey'] as const) if (typeof body[field] !== 'string' || body[field] === '') errors[field] = ['This field is required.'];
    if (typeof body.sslCertificate === 'string' && body.sslCertificate !== '' && !body.sslCertificate.includes('-----BEGIN CERTIFICATE-----'))
      errors.sslCertificate = ['Invalid certificate: no PEM-encoded certificate found.'];
    if (typeof body.sslPrivateKey === 'string' && body.sslPrivateKey !== '' && !/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(body.sslPrivateKey))
      errors.sslPrivateKey = ['Invalid private key: no PEM-encoded private key found.'];
  }
  if (Object.keys(errors).length > 0) refuse(errors);
  const cert: CdnCertificateRecord = {
    id: ctx.state.cdnNextIds.certificate++,
    name: body.name as string,
    automated,
    issuer: automated ? '' : 'Own certificate authority',
    subject: automated ? '' : 'own.example.com',
    created: ctx.now,
    issuing: null,
  };
  return { record: cert, logged: { name: cert.name, automated } };
}

/** SSL certificate list filters (get-ssl-certificates-list). */
interface CertificateQuery {
  automated?: boolean | undefined;
  resourceId?: number | undefined;
  notAfterLte?: number | undefined;
}

function readCertificateQuery(ctx: Ctx): CertificateQuery {
  const automated = ctx.query.get('automated');
  const resource = ctx.query.get('resource_id');
  const notAfter = ctx.query.get('validity_not_after_lte');
  const query: CertificateQuery = {};
  if (automated !== null && automated !== '') {
    const lower = automated.toLowerCase();
    if (!['true', 'false', '1', '0'].includes(lower)) refuse({ automated: ['Must be a valid boolean.'] });
    query.automated = lower === 'true' || lower === '1';
  }
  if (resource !== null && resource !== '') {
    if (!/^\d+$/.test(resource)) refuse({ resource_id: ['A valid integer is required.'] });
    query.resourceId = Number(resource);
  }
  if (notAfter !== null && notAfter !== '') {
    const ms = parseDate(notAfter);
    if (Number.isNaN(ms)) refuse({ validity_not_after_lte: ['Enter a valid date/time.'] });
    query.notAfterLte = ms;
  }
  return query;
}

function certificateMatches(cert: CdnCertificateRecord, q: CertificateQuery, ctx: Ctx): boolean {
  if (q.automated !== undefined && cert.automated !== q.automated) return false;
  if (q.resourceId !== undefined && ctx.state.cdnResources.get(q.resourceId)?.sslData !== cert.id) return false;
  if (q.notAfterLte !== undefined) {
    const after = renderCertificate(cert, ctx).validity_not_after as string;
    if (after === '' || parseDate(after) > q.notAfterLte) return false;
  }
  return true;
}

/** The CDN lists' paging (routes.ts's cdnPages): a plain array without `limit`, else `{count, next, previous, results}`. */
type Paging = PagingStyle<{ path: string; query: URLSearchParams }>;

/** The sslData collection: list (filters, paging), POST (both AddSSL variants), GET, DELETE (refused while a resource uses it). */
export function certificateRoutes(paging: Paging): ServiceRoute<CdnSlice>[] {
  const certificates = defineCollection<CdnSlice, CdnCertificateRecord, { path: string; query: URLSearchParams }, CertificateQuery, 'integer'>({
    product: CDN_PRODUCT,
    path: '/cdn/sslData',
    idParam: 'ssl_id',
    idSyntax: 'integer',
    noun: 'SSL certificate',
    scope: (ctx) => ({ path: ctx.path, query: ctx.query }),
    store: (ctx) => ctx.state.cdnCertificates,
    idOf: (c) => c.id,
    mutationKind: 'cdn_certificate',
    list: { paging, queryFirst: true, query: readCertificateQuery, where: certificateMatches, order: (a, b) => a.id - b.id, render: (c, ctx) => renderCertificate(c, ctx) },
    get: (c, ctx) => renderCertificate(c, ctx),
    create: { build: buildCertificate, answer: (c, ctx) => jsonReply(201, renderCertificate(c, ctx)) },
    delete: {
      check(ctx, c) {
        if (usersOf(ctx, c.id).length > 0) refuse({ sslData: ['The SSL certificate is used by a CDN resource and cannot be deleted.'] });
      },
    },
  });
  const status: ServiceRoute<CdnSlice> = {
    method: 'GET',
    pattern: '/cdn/sslData/{cert_id}/status',
    handler(ctx) {
      const id = /^\d+$/.test(ctx.params.cert_id ?? '') ? Number(ctx.params.cert_id) : NaN;
      const cert = ctx.state.cdnCertificates.get(id);
      if (cert === undefined) return fail(CDN_PRODUCT.notFound(`SSL certificate ${ctx.params.cert_id}`, ctx.requestId));
      if (!cert.automated) return refuse({ certificate: ["Status is available for Let's Encrypt certificates only."] });
      if (cert.issuing === null) return refuse({ certificate: ['Certificate is not attached to a resource.'] });
      const { issuing } = cert;
      const done = issuingDone(cert, ctx.now);
      const finished = issuing.started + issuing.durationMs;
      const attempt = done
        ? {
            id: 1,
            status: issuing.failure === null ? 'Done' : 'Failed',
            error: issuing.failure?.error ?? '',
            details: issuing.failure?.details ?? '',
            created: cdnDate(finished),
          }
        : undefined;
      return jsonReply(200, {
        id: issuing.id,
        statuses: attempt ? [attempt] : [],
        ...(attempt ? { latest_status: attempt } : {}),
        started: cdnDate(issuing.started),
        // Documented as null until finished, but typed a string: left out until then.
        ...(done ? { finished: cdnDate(finished) } : {}),
        active: !done,
        attempts_count: attempt ? 1 : 0,
        next_attempt_time: null,
        resource: issuing.resource,
      });
    },
  };
  return [...certificates.routes, status];
}

/**
 * What a resource write does with Let's Encrypt certificates, checked before it is applied
 * (issue-lets-encrypt-certificate's 400s): attaching an automated certificate that another
 * resource uses, or to a resource with a wildcard host name, is refused.
 */
export function checkLetsEncryptAttach(ctx: Ctx, r: CdnResourceRecord | undefined, sslData: number | null | undefined, hosts: readonly string[]): void {
  if (sslData === undefined || sslData === null) return;
  const cert = ctx.state.cdnCertificates.get(sslData);
  if (cert === undefined || !cert.automated || sslData === r?.sslData) return;
  if (usersOf(ctx, sslData).some((other) => other !== r)) refuse({ sslData: [LE_ALREADY_ATTACHED] });
  if (hosts.some((h) => h.startsWith('*.'))) refuse({ sslData: [LE_WILDCARD] });
}

/**
 * After a resource write: a Let's Encrypt certificate newly attached starts issuing (done after
 * the emulator's task duration; failing for hosts that cannot be validated), one detached (the
 * RevokeLECert body) is revoked and may be attached again.
 */
export function afterSslChange(ctx: Ctx, r: CdnResourceRecord, previous: number | null): void {
  if (r.sslData === previous) return;
  const before = previous === null ? undefined : ctx.state.cdnCertificates.get(previous);
  if (before?.automated && before.issuing?.resource === r.id) before.issuing = null;
  const cert = r.sslData === null ? undefined : ctx.state.cdnCertificates.get(r.sslData);
  if (cert?.automated) {
    cert.issuing = { id: ctx.state.cdnNextIds.issuing++, resource: r.id, started: ctx.now, durationMs: ctx.settings.taskDurationMs, failure: issuingFailure(hostsOf(r)) };
  }
}
