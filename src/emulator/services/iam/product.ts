import { jsonReply, type ApiProduct } from '../../reply.js';

/** The IAM API (Django REST framework): 400 `{"message"}` (a refused field: `{"errors": {field: [...]}}`), other errors `{"detail"}`. */
export const IAM_PRODUCT: ApiProduct = {
  pathPrefix: '/iam/',
  error: (status, message) => (status === 400 ? jsonReply(400, { message }) : jsonReply(status, { detail: message })),
  notFound: () => jsonReply(404, { detail: 'Not found.' }),
  invalidParam: ({ name }) => jsonReply(400, { errors: { [name]: ['A valid integer is required.'] } }),
  blankQueryIsAbsent: true,
  methodNotAllowedMessage: (method) => `Method "${method}" not allowed.`,
  invalidJsonMessage: (detail) => `JSON parse error - ${detail}`,
};
