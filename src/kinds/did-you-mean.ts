import { closest, distance } from 'fastest-levenshtein';

/**
 * The candidate closest to `word` when it is close enough to be a likely typo (edit
 * distance at most a third of the word, and at least 1..2), else undefined. Comparison is
 * case-insensitive, so `Project_ID` suggests `project_id`.
 */
export function suggest(word: string, candidates: readonly string[]): string | undefined {
  if (candidates.length === 0 || word.length === 0) return undefined;
  const lower = word.toLowerCase();
  const byLower = new Map(candidates.map((c) => [c.toLowerCase(), c]));
  const best = closest(lower, [...byLower.keys()]);
  const limit = Math.max(2, Math.floor(word.length / 3));
  return distance(lower, best) <= limit ? byLower.get(best) : undefined;
}

/** `; did you mean "x"?` for a likely typo, else the empty string: append it to a summary. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const match = suggest(word, candidates);
  return match === undefined ? '' : `; did you mean "${match}"?`;
}
