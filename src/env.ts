/** The one environment variable the API key comes from (never a stack field, never a flag). */
export const API_KEY_ENV = 'EDGEFORM_API_KEY';
