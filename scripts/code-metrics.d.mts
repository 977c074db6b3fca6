/** A figure's limits: issue 32's goal, and where the code stands now (what CI's --ratchet run holds). */
export interface Limit {
  goal: number;
  now: number;
}
/** The one table of the figures' limits. */
export declare const GOALS: { longFunctions: Limit; configImportsPlan: Limit; nonNull: Limit; unexplainedCasts: Limit };
/** What measure() found. */
export interface Measurement {
  files: number;
  longFunctions: { at: string; name: string; lines: number }[];
  configImportsPlan: { at: string; imports: string }[];
  nonNull: number;
  unexplainedCasts: { at: string; cast: string }[];
  kindSizes: Record<string, Record<string, number>>;
}
/** Measures the given modules (paths relative to the repository's root; default: every module of src/ and cmd/). */
export declare function measure(files?: readonly string[]): Measurement;
/** Each figure beside its limit (the goal, or with `ratchet` where the code stands now), and whether it misses it. */
export declare function judge(
  m: Measurement,
  options?: { ratchet?: boolean; limits?: typeof GOALS },
): { figure: string; value: number; goal: number; detail: string[]; missed: boolean }[];
