const SECRET_WORDS = ['apikey', 'token', 'secret', 'authorization', 'password', 'passwd'];

/**
 * True for a key that names a credential (api_key, apiKey, api-key, token, client_secret,
 * Authorization, password, ...): compared case-insensitively with `-`/`_` removed, so
 * spelling variants cannot slip through.
 */
export function isSecretFieldName(key: string): boolean {
  const normal = key.toLowerCase().replace(/[-_\s.]/g, '');
  return SECRET_WORDS.some((word) => normal.includes(word));
}

/** `text` without the words isSecretFieldName looks for (with `-`, `_`, `.` or spaces between their letters, or before them): what remains of a live name for a block name. */
export function withoutSecretWords(text: string): string {
  return SECRET_WORDS.reduce((out, word) => out.replace(new RegExp(`[-_\\s.]*${word.split('').join('[-_\\s.]*')}`, 'gi'), ''), text);
}

/** True for a string shaped like a platform API key (`<digits>$<long token>`, e.g. `29841$c767b250…`). */
export function looksLikeApiKey(value: string): boolean {
  return value.includes('$') && API_KEY_SHAPE.test(value);
}

const API_KEY_SHAPE = /\b\d+\$[A-Za-z0-9]{16,}/;

/** Keys shorter than this are not searched for (as in the API client's redaction): no platform key is that short. */
const MIN_API_KEY_LENGTH = 6;

/**
 * True when `text` contains the API key edgeform runs with (EDGEFORM_API_KEY), whatever its
 * shape: a value that equals the key, or holds it, would end up on the platform (a tag) or in
 * a plan. Matching is literal (keys contain `$`).
 */
export function containsApiKey(text: string, apiKey: string | undefined): boolean {
  return apiKey !== undefined && apiKey.length >= MIN_API_KEY_LENGTH && text.includes(apiKey);
}
