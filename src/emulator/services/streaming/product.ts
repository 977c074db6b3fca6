import { jsonReply, reasonPhrase, type ApiProduct, type Reply } from '../../reply.js';

/** The streaming API: errors `{"status", "error": "<reason>. <message>"}`. */
export const STREAMING_PRODUCT: ApiProduct = {
  pathPrefix: '/streaming/',
  error: streamingError,
  notFound: (what) => streamingError(404, `${what} was not found; check the initial parameters of the request.`),
  invalidParam: ({ name, text, in: where, expected, status }) =>
    streamingError(
      status,
      where === 'path' ? `${name} must be a positive integer, got "${text}".` : `${name} must be an integer ≥ ${'min' in expected ? expected.min : 1}, got "${text}".`,
    ),
};

function streamingError(status: number, message: string): Reply {
  return jsonReply(status, { status, error: `${reasonPhrase(status)}. ${message}` });
}
