/** Which product answers a route; it decides the shape of error bodies. */
export type Product = 'cloud' | 'fastedge' | 'streaming' | 'iam' | 'control';

/**
 * What a route handler answers. Handlers return a value instead of writing to the socket,
 * so the server can still drop the connection after the change was made (dropNext 'after').
 */
export interface Reply {
  status: number;
  /** JSON body; undefined means no body. */
  json?: unknown;
  /** text/plain body (used by FastEdge 503s). */
  text?: string;
  headers?: Record<string, string>;
}

/** A JSON reply. */
export function jsonReply(status: number, json: unknown, headers?: Record<string, string>): Reply {
  return headers ? { status, json, headers } : { status, json };
}

/** A reply without a body (204, FastEdge 404). */
export function emptyReply(status: number, headers?: Record<string, string>): Reply {
  return headers ? { status, headers } : { status };
}

const CLOUD_CLASS_BY_STATUS: Record<number, string> = {
  400: 'ValidationError',
  401: 'NotAuthenticated',
  403: 'ForbiddenError',
  404: 'NotFoundError',
  405: 'HTTPError',
  409: 'ConflictError',
  429: 'TooManyRequests',
  500: 'InternalServerError',
  502: 'BadGateway',
  503: 'ServiceUnavailable',
  504: 'GatewayTimeout',
};

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** The standard reason phrase of a status code ("Error" when unknown). */
export function reasonPhrase(status: number): string {
  return REASONS[status] ?? 'Error';
}

/** Cloud error body `{exception_class, message, request_id}`; the server adds the matching X-Request-ID header. */
export function cloudError(status: number, message: string, requestId: string, exceptionClass?: string): Reply {
  return jsonReply(status, {
    exception_class: exceptionClass ?? CLOUD_CLASS_BY_STATUS[status] ?? 'HTTPError',
    message,
    request_id: requestId,
  });
}

/**
 * The error answer of a product for a status the route itself does not special-case
 * (faults, unknown routes, wrong methods, malformed bodies). FastEdge 404 has no body and
 * its 5xx are text/plain, per the specification.
 */
export function productError(product: Product, status: number, message: string, requestId: string): Reply {
  switch (product) {
    case 'cloud':
      return cloudError(status, message, requestId);
    case 'fastedge':
      if (status === 404) return emptyReply(404);
      if (status >= 500) return { status, text: message };
      return jsonReply(status, { error: message });
    case 'streaming':
      return jsonReply(status, { status, error: `${reasonPhrase(status)}. ${message}` });
    case 'iam':
      if (status === 400) return jsonReply(400, { message });
      return jsonReply(status, { detail: message });
    case 'control':
      return jsonReply(status, { error: message });
  }
}

/** The product a request path belongs to, from its first segment. */
export function productOfPath(path: string): Product {
  if (path.startsWith('/cloud/')) return 'cloud';
  if (path.startsWith('/fastedge/')) return 'fastedge';
  if (path.startsWith('/streaming/')) return 'streaming';
  if (path.startsWith('/iam/')) return 'iam';
  return 'control';
}

/**
 * Thrown by request helpers (parameter and body checks) to answer at once with `reply`; the
 * server catches it and sends the reply, so handlers read straight through.
 */
export class ReplyError extends Error {
  constructor(readonly reply: Reply) {
    super(`reply ${reply.status}`);
    this.name = 'ReplyError';
  }
}

/** Stops the handler and answers with `reply`. */
export function fail(reply: Reply): never {
  throw new ReplyError(reply);
}
