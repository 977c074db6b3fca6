/**
 * The API layer's public surface: what providers and the executor import. Nothing here knows
 * about plans or providers.
 */
export * from './auth.js';
export * from './base-url.js';
export * from './client.js';
export * from './error-body.js';
export * from './errors.js';
export * from './path.js';
export * from './redact.js';
export * from './retry.js';
export * from './sleep.js';
export * from './tasks.js';
