/**
 * An API family of the platform (cloud, FastEdge, streaming, IAM) and the emulator's control
 * routes: the shape of the errors it answers. Every service names the product it belongs to;
 * several services share one (all cloud services answer cloud errors).
 */
export interface ApiProduct {
  /** Paths starting with this belong to the product, also when no route matches them (`/cloud/`). */
  readonly pathPrefix: string;
  /** Whether answers carry the request id in an X-Request-ID header (cloud). */
  readonly requestIdHeader?: boolean;
  /** The error answer for a status the route itself does not special-case (faults, unknown routes, wrong methods, malformed bodies). */
  error(status: number, message: string, requestId: string): Reply;
  /** The answer for a resource of a collection that does not exist; `what` names it (`Floating IP <id>`). */
  notFound(what: string, requestId: string): Reply;
  /** The answer for a path or query parameter that is not what its collection expects (collection.ts, paging.ts). */
  invalidParam(param: InvalidParam, requestId: string): Reply;
  /** Whether a query parameter given empty (`limit=`) counts as absent (Django REST framework does so). */
  readonly blankQueryIsAbsent?: boolean;
  /** The message of a 405; default `HTTP 405: Method Not Allowed`. */
  methodNotAllowedMessage?(method: string): string;
  /** The message of a 400 for a body that is not JSON; default `Invalid JSON in request body: <detail>`. */
  invalidJsonMessage?(detail: string): string;
}

/** A path or query parameter its route refuses: what it should have been, and the status (400 unless the endpoint says otherwise). */
export interface InvalidParam {
  name: string;
  /** The text given. */
  text: string;
  in: 'path' | 'query';
  /** A UUID, or an integer within bounds (a path id: a positive integer when `min` is 1). */
  expected: { kind: 'uuid' } | { kind: 'integer'; min?: number | undefined; max?: number | undefined };
  status: number;
}

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

/** The answers of the test-only /__emulator/ routes, and of paths no product claims: `{"error": message}`. */
export const CONTROL_PRODUCT: ApiProduct = {
  pathPrefix: '/__emulator/',
  error: (status, message) => jsonReply(status, { error: message }),
  notFound: (what) => jsonReply(404, { error: `${what} not found` }),
  invalidParam: (param) => jsonReply(param.status, { error: `invalid ${param.name}: "${param.text}"` }),
};

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
