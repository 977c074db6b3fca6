/**
 * Parsing of the platform's error bodies, which differ per product:
 * cloud `{exception_class, message, request_id, invalid_fields?}` (LaaS `{code, message}`),
 * FastEdge `{error}` or text/plain, streaming `{status, error}` / `{errors: {field: [msg]}}`,
 * IAM `{errors: {field: [msg]}}` / `{message}` / `{detail}`. Recognised by shape, so a product
 * answering in another product's style still yields its message.
 */

/** The useful parts of an error response body. */
export interface ParsedErrorBody {
  /** The JSON value, the text, or null for an empty body. */
  body: unknown;
  /** One line a human can act on, or null when the body carries none. */
  platformMessage: string | null;
  /** A cloud body's `request_id`, when present. */
  requestId: string | null;
}

const MAX_MESSAGE_LENGTH = 500;

/** The product of an API path: its first segment (`/cloud/v1/...` → `cloud`). */
export function productOf(path: string): string {
  return path.replace(/^\/+/, '').split(/[/?#]/, 1)[0] ?? '';
}

/** Parses an error response body given its text and Content-Type. Never throws. */
export function parseErrorBody(text: string, contentType: string | null | undefined): ParsedErrorBody {
  const trimmed = text.trim();
  if (trimmed === '') return { body: null, platformMessage: null, requestId: null };
  const json = looksJson(trimmed, contentType) ? tryParseJson(trimmed) : undefined;
  if (json === undefined) return { body: text, platformMessage: messageFromText(trimmed, contentType), requestId: null };
  return { body: json, platformMessage: messageFromJson(json), requestId: requestIdFromJson(json) };
}

function messageFromJson(json: unknown): string | null {
  if (typeof json === 'string') return clip(json);
  if (Array.isArray(json)) return clip(json.filter((v) => typeof v === 'string').join('; ')) || null;
  if (!isRecord(json)) return null;

  const parts: string[] = [];
  for (const key of ['message', 'error', 'detail'] as const) {
    const value = json[key];
    if (typeof value === 'string' && value.trim() !== '') {
      parts.push(value.trim());
      break;
    }
    // Some APIs nest: {"error": {"message": "..."}}
    if (isRecord(value) && typeof value.message === 'string') {
      parts.push(value.message.trim());
      break;
    }
  }
  const fields = describeFieldErrors(json.invalid_fields) ?? describeFieldErrors(json.errors);
  if (fields) parts.push(fields);
  return parts.length > 0 ? clip(parts.join(': ')) : null;
}

/** `{name: ["can't be blank"], email: ["invalid"]}` → `name: can't be blank; email: invalid`. */
function describeFieldErrors(value: unknown): string | null {
  if (Array.isArray(value)) {
    const msgs = value.filter((v): v is string => typeof v === 'string');
    return msgs.length > 0 ? msgs.join('; ') : null;
  }
  if (typeof value === 'string') return value;
  if (!isRecord(value)) return null;
  const parts: string[] = [];
  for (const [field, raw] of Object.entries(value)) {
    const msgs = Array.isArray(raw) ? raw.map(stringify) : [stringify(raw)];
    const text = msgs.join(', ');
    parts.push(field === 'non_field_errors' || field === '__all__' ? text : `${field}: ${text}`);
  }
  return parts.length > 0 ? parts.join('; ') : null;
}

function requestIdFromJson(json: unknown): string | null {
  if (!isRecord(json)) return null;
  const id = json.request_id;
  return typeof id === 'string' && id !== '' ? id : null;
}

function messageFromText(text: string, contentType: string | null | undefined): string | null {
  // A gateway's HTML error page says nothing the status line does not.
  if (/html/i.test(contentType ?? '') || /^<(!doctype|html)/i.test(text)) return null;
  return clip(toOneLine(text));
}

/**
 * Platform text made one line: every run of whitespace, line breaks (and NEL) included, becomes
 * one space, so a message the platform wrote cannot start a line of edgeform's output of its own.
 * The client applies it after redaction, so a key wrapped over two lines is still found.
 */
export function toOneLine(text: string): string {
  return text.replace(/[\s\u0085]+/g, ' ').trim();
}

function looksJson(text: string, contentType: string | null | undefined): boolean {
  return /json/i.test(contentType ?? '') || text.startsWith('{') || text.startsWith('[');
}

function tryParseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function stringify(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function clip(text: string): string {
  const t = text.trim();
  return t.length > MAX_MESSAGE_LENGTH ? `${t.slice(0, MAX_MESSAGE_LENGTH - 1)}…` : t;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
