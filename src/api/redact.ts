import { API_KEY_ENV } from '../env.js';

/** Platform API keys are long (`<id>$<64 hex>`); anything shorter than this is not redacted. */
export const MIN_SECRET_LENGTH = 6;

/** The replacement shown wherever a secret would have been printed. */
export const REDACTED = '[REDACTED]';

/**
 * Replaces every occurrence of each secret (and of its URL-encoded and JSON-escaped forms)
 * with [REDACTED]. Keys contain `$`, so matching is literal, never a RegExp built from the key.
 * Secrets shorter than MIN_SECRET_LENGTH are not searched for: no platform key is that short,
 * and redacting a one-letter "key" would mangle every word that contains the letter.
 */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_LENGTH) continue;
    for (const form of new Set([secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)])) {
      if (form.length > 0) out = out.split(form).join(REDACTED);
    }
  }
  return out;
}

/** The secrets edgeform knows about in an environment: the API key, if set. */
export function secretsFromEnv(env: NodeJS.ProcessEnv): string[] {
  const key = env[API_KEY_ENV];
  return key ? [key] : [];
}
