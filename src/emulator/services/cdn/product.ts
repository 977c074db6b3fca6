import { jsonReply, type ApiProduct } from '../../reply.js';

/**
 * The CDN API (Django REST framework): a refused body 400 `{"errors": {field: [...]}}`, a body
 * that is not JSON 400 `{"message": "JSON parse error - ..."}`, other errors `{"detail"}`; an
 * unknown or malformed id 404 `{"detail": "Not found."}` (the id is part of the URL pattern).
 */
export const CDN_PRODUCT: ApiProduct = {
  pathPrefix: '/cdn/',
  error: (status, message) => (status === 400 ? jsonReply(400, { message }) : jsonReply(status, { detail: message })),
  notFound: () => jsonReply(404, { detail: 'Not found.' }),
  invalidParam: ({ name, in: where }) => (where === 'path' ? jsonReply(404, { detail: 'Not found.' }) : jsonReply(400, { errors: { [name]: ['A valid integer is required.'] } })),
  blankQueryIsAbsent: true,
  methodNotAllowedMessage: (method) => `Method "${method}" not allowed.`,
  invalidJsonMessage: (detail) => `JSON parse error - ${detail}`,
};
