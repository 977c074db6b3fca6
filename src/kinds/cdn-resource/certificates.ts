import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import { CertificateIssueError } from '../../errors.js';
import { listAll, type AccountScope, type KindList } from '../kind-list.js';
import type { ProviderContext } from '../provider.js';

/** The fields of an SSL certificate answer (GetSSLAnswer) edgeform reads. */
const certificateAnswer = z.looseObject({ id: z.int(), name: z.string(), automated: z.boolean().optional() });

/** An SSL certificate as edgeform reads it. */
export type CdnCertificate = z.infer<typeof certificateAnswer>;

const certificatePage = z.union([z.array(certificateAnswer), z.looseObject({ count: z.int().min(0), results: z.array(certificateAnswer) })]);

/** The account's Let's Encrypt certificates (`GET /cdn/sslData?automated=true`, `limit`/`offset`, up to 1,000 a page). */
export const automatedCertificateList: KindList<AccountScope, CdnCertificate> = {
  paging: { kind: 'offset', maxPageSize: 1000 },
  path: () => '/cdn/sslData',
  async fetchPage(ctx, s, { limit, offset }) {
    const query = { automated: 'true', limit, offset };
    const page = (await ctx.api.get(automatedCertificateList.path(s), { schema: certificatePage, query, signal: ctx.signal })).body;
    return Array.isArray(page) ? { items: page } : { items: page.results, total: page.count };
  },
};

/** The ids of the account's Let's Encrypt certificates: one paged list, whatever the number of resources. */
export async function listAutomatedCertificates(ctx: ProviderContext): Promise<CdnCertificate[]> {
  return listAll(ctx, automatedCertificateList, {}, (c) => String(c.id));
}

/** The name edgeform gives the Let's Encrypt certificate of a cname (unique on the platform, as certificate names must be). */
export function certificateName(cname: string): string {
  return `letsencrypt ${cname.toLowerCase()}`;
}

/** The fields of an issuing status (LERequestStatusV2) edgeform reads. */
const issuingStatus = z.looseObject({
  active: z.boolean(),
  latest_status: z.looseObject({ status: z.string(), error: z.string().nullish(), details: z.string().nullish() }).nullish(),
});

/** How long apply waits for an issuing at most, in polls: capped backoff, about 20 minutes (issuing takes up to 15). */
const ISSUING_POLL_DELAYS_MS = [1000, 2000, 4000, 8000, 15_000, ...Array.from({ length: 78 }, () => 15_000)];

/**
 * Issues a Let's Encrypt certificate for a resource: the account's certificate of the cname's
 * name is reused when it exists (a revoked one may be attached again), else created
 * (`POST /cdn/sslData {name, automated: true}`) and found again by name in the list (the spec
 * documents no answer body); then attached (`PATCH /cdn/resources/{id}` with AttachLECert), and
 * its status (`GET /cdn/sslData/{id}/status`) polled until the issuing is over. An issuing that
 * ends other than Done detaches the certificate again (so the next apply tries anew) and throws
 * CertificateIssueError naming the resource and the platform's reason.
 */
export async function issueCertificate(ctx: ProviderContext, resource: { id: number; cname: string; address: string }): Promise<void> {
  const name = certificateName(resource.cname);
  let cert = (await listAutomatedCertificates(ctx)).find((c) => c.name === name);
  if (cert === undefined) {
    ctx.progress(`creating the Let's Encrypt certificate "${name}"`);
    await ctx.api.request({ method: 'POST', path: '/cdn/sslData', body: { name, automated: true }, signal: ctx.signal });
    cert = (await listAutomatedCertificates(ctx)).find((c) => c.name === name);
    if (cert === undefined)
      throw new CertificateIssueError({ address: resource.address, hosts: resource.cname, reason: `the certificate "${name}" was created but is not in GET /cdn/sslData` });
  }
  const path = apiPath`/cdn/resources/${resource.id}`;
  ctx.progress(`issuing the Let's Encrypt certificate ${cert.id}`);
  await ctx.api.request({ method: 'PATCH', path, body: { sslData: cert.id, sslEnabled: true }, retry: 'idempotent', signal: ctx.signal });
  const statusPath = apiPath`/cdn/sslData/${cert.id}/status`;
  for (const delay of [0, ...ISSUING_POLL_DELAYS_MS]) {
    if (delay > 0) await ctx.sleep(delay);
    const status = (await ctx.api.get(statusPath, { schema: issuingStatus, signal: ctx.signal })).body;
    if (status.active) continue;
    const latest = status.latest_status;
    if (latest?.status.toLowerCase() === 'done') return;
    await revokeCertificate(ctx, resource.id);
    const reason = [latest?.status ?? 'no attempt', latest?.error, latest?.details].filter((part) => part !== null && part !== undefined && part !== '').join(': ');
    throw new CertificateIssueError({ address: resource.address, hosts: resource.cname, reason });
  }
  throw new CertificateIssueError({ address: resource.address, hosts: resource.cname, reason: `still issuing after about 20 minutes (GET ${statusPath})` });
}

/** Revokes a resource's Let's Encrypt certificate (RevokeLECert: `{sslData: null, sslEnabled: false}`): HTTPS off. */
export async function revokeCertificate(ctx: ProviderContext, resourceId: number): Promise<void> {
  await ctx.api.request({ method: 'PATCH', path: apiPath`/cdn/resources/${resourceId}`, body: { sslData: null, sslEnabled: false }, retry: 'idempotent', signal: ctx.signal });
}
