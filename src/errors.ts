/**
 * Base of every runtime error edgeform raises on purpose. `code` is stable (EDGEFORM_*), so
 * callers branch on `instanceof` or `code`, never on message text; the CLI boundary prints
 * these as plain messages and anything else as a bug.
 */
export class EdgeformError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}
