import { emptyReply, jsonReply, type ApiProduct } from '../../reply.js';

/** The FastEdge API: errors `{"error"}`, a 404 without a body and 5xx as text/plain, per the specification. */
export const FASTEDGE_PRODUCT: ApiProduct = {
  pathPrefix: '/fastedge/',
  error(status, message) {
    if (status === 404) return emptyReply(404);
    if (status >= 500) return { status, text: message };
    return jsonReply(status, { error: message });
  },
  notFound: () => emptyReply(404),
  invalidParam: ({ name, text, in: where }) =>
    jsonReply(400, { error: where === 'path' ? `invalid ${name.replace(/_/g, ' ')} "${text}": must be a positive integer` : `invalid value of ${name}: "${text}"` }),
};
