/**
 * The API key: read only from EDGEFORM_API_KEY (never from a stack or plan file) and sent as
 * `Authorization: APIKey <key>`, the one scheme every product accepts.
 */
import { ApiConfigError } from './errors.js';
import { API_KEY_ENV } from '../env.js';

/**
 * The API key from the environment, trimmed. Throws {@link ApiConfigError} when it is missing
 * or holds characters a header cannot carry; the message never includes the key.
 */
export function resolveApiKey(env: NodeJS.ProcessEnv): string {
  const key = env[API_KEY_ENV]?.trim();
  if (!key) {
    throw new ApiConfigError(
      'EDGEFORM_API_KEY_MISSING',
      `no API key: set ${API_KEY_ENV} to your platform API key (keys contain "$": quote it in the shell, e.g. export ${API_KEY_ENV}='...')`,
    );
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(key) || /[^\u0020-\u00ff]/.test(key)) {
    throw new ApiConfigError('EDGEFORM_API_KEY_INVALID', `${API_KEY_ENV} contains characters an HTTP header cannot carry (control or non-Latin-1 characters)`);
  }
  return key;
}

/** The Authorization header value for a key. */
export function authorizationHeader(apiKey: string): string {
  return `APIKey ${apiKey}`;
}
