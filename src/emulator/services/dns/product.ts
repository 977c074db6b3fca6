import { jsonReply, type ApiProduct, type Reply } from '../../reply.js';

/** An answer of the DNS API's errors: `{"error": message}` (the vendor documents 400; unknown zones and record sets are 404, duplicates 409). */
export function dnsError(status: number, message: string): Reply {
  return jsonReply(status, { error: message });
}

/** The DNS API (/dns/v2): every error `{"error": "..."}`. */
export const DNS_PRODUCT: ApiProduct = {
  pathPrefix: '/dns/',
  error: (status, message) => dnsError(status, message),
  notFound: (what) => dnsError(404, `${what} not found`),
  invalidParam: ({ name, text, in: where, status }) => dnsError(status, `invalid ${where} parameter ${name}: "${text}"`),
};
