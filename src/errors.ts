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

/**
 * A failure after which no request of this run can succeed: the platform refused the API key,
 * or it cannot be reached (or fails so many requests that the run's retry quota ran out). The
 * run stops with this one error instead of reporting it once per resource: plan, drift and the
 * reads of a saved plan end at once, apply starts no further action. The API layer defines the
 * subclasses; every layer recognises them with `instanceof RunFatalError`.
 */
export class RunFatalError extends EdgeformError {}
