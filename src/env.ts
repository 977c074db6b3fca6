/** The one environment variable the API key comes from (never a stack field, never a flag). */
export const API_KEY_ENV = 'EDGEFORM_API_KEY';

/** The key owner marks are made with (see src/kinds/owner-seal.ts): a secret like the API key, only ever from the environment. */
export const OWNER_KEY_ENV = 'EDGEFORM_OWNER_KEY';

/** The owner key before a rotation: marks made with it still prove ownership, and are re-made with the new key. */
export const OWNER_KEY_PREVIOUS_ENV = 'EDGEFORM_OWNER_KEY_PREVIOUS';
/**
 * Where the apply lock across machines lives: a PostgreSQL connection URL (`postgres://…`), only
 * ever from the environment (never in a stack). Its password is a secret of the run, redacted
 * like the API key.
 */
export const LOCK_URL_ENV = 'EDGEFORM_LOCK_URL';
