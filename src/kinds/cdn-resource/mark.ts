/**
 * The stack mark edgeform writes at the end of a CDN resource's description when it creates one
 * (CDN resources have no tags): ` [edgeform:STACK]`. It says which stack owns the resource, for
 * prune; the plan compares the declared description without it. Editing it by hand disowns the
 * resource (prune then leaves it alone).
 */
const MARK = /\s?\[edgeform:([^\]\s]+)\]$/;

/** The mark of a stack, as appended. */
export function stackMark(stack: string): string {
  return `[edgeform:${stack}]`;
}

/** A live description split into the user's text and the stack its mark names (null: no mark). */
export function splitMark(description: string | null | undefined): { text: string; stack: string | null } {
  const live = description ?? '';
  const match = MARK.exec(live);
  return match ? { text: live.slice(0, match.index), stack: match[1]! } : { text: live, stack: null };
}

/** The description to send: the user's text with the stack's mark appended (none without a stack). */
export function withMark(text: string, stack: string | null): string {
  if (stack === null) return text;
  return text === '' ? stackMark(stack) : `${text} ${stackMark(stack)}`;
}
