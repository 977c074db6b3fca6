/** The outcome of checking a request's Authorization header. */
export type AuthResult = 'ok' | 'missing' | 'invalid';

/** 401 body for a request without credentials. */
export const MISSING_CREDENTIALS_BODY = { detail: 'Authentication credentials were not provided.' };

/** 401 body for a wrong key or scheme. */
export const INVALID_TOKEN_BODY = { detail: 'Given token not valid for any token type', code: 'token_not_valid' };

/**
 * Checks `Authorization: APIKey <key>`: the scheme word is case-insensitive (apikey, APIKey),
 * followed by exactly one space and the key, compared literally (keys contain `$`).
 * Header names are case-insensitive already (Node lowercases them).
 */
export function checkAuth(header: string | undefined, apiKey: string): AuthResult {
  if (header === undefined || header === '') return 'missing';
  if (header.length < 8 || header.slice(0, 6).toLowerCase() !== 'apikey' || header[6] !== ' ') return 'invalid';
  return header.slice(7) === apiKey ? 'ok' : 'invalid';
}
