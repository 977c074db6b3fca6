/** The one environment variable the API key comes from (never a stack field, never a flag). */
export const API_KEY_ENV = 'EDGEFORM_API_KEY';

/**
 * Where the apply lock across machines lives: a PostgreSQL connection URL (`postgres://…`), only
 * ever from the environment (never in a stack). Its password is a secret of the run, redacted
 * like the API key.
 */
export const LOCK_URL_ENV = 'EDGEFORM_LOCK_URL';
