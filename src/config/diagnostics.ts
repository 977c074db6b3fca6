/** A 1-based position in a source file. */
export interface SourcePos {
  line: number;
  column: number;
}

/** A span of a stack file, from the YAML parsers' offsets (never from searching text). */
export interface SourceRange {
  filename: string;
  start: SourcePos;
  end: SourcePos;
}

export type Severity = 'error' | 'warning';

/**
 * A problem the user can fix, as a value: accumulated, never thrown. `code` is stable
 * (e.g. "unknown-field", "dependency-cycle") so tests and tools can branch on it.
 */
export interface Diagnostic {
  severity: Severity;
  code: string;
  summary: string;
  detail?: string;
  /** The resource or check address (TYPE.NAME) the problem belongs to, when there is one. */
  address?: string;
  range?: SourceRange;
}

/** True when any diagnostic is an error (warnings alone do not stop a run). */
export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}

/**
 * Appends `more` to `diagnostics`. Not `push(...more)`: a spread passes every element as an
 * argument, and a stack with 200,000 errors in one block overflows the call stack that way.
 */
export function addDiagnostics(diagnostics: Diagnostic[], more: readonly Diagnostic[]): void {
  for (const d of more) diagnostics.push(d);
}
