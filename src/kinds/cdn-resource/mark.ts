/**
 * The stack mark edgeform writes at the end of a CDN resource's description when it creates one
 * (CDN resources have no tags): ` [edgeform:STACK]`, or with EDGEFORM_OWNER_KEY set
 * ` [edgeform:STACK:MARK]`, MARK the owner mark (owner-seal.ts: a keyed hash of the stack and the
 * resource's cname, which only the stack's pipelines can make). It says which stack owns the
 * resource, for prune; the plan compares the declared description without it. Editing it by hand
 * disowns the resource (prune then leaves it alone); writing one by hand, or copying one from
 * another resource, makes no valid owner mark. This module is the one place the mark is read
 * and written.
 */
const MARK = /\s?\[edgeform:([^\]\s:]+)(?::(v\d+\.[A-Za-z0-9_-]+))?\]$/;

/** The mark of a stack, as appended (with its owner mark when given). */
export function stackMark(stack: string, mark?: string): string {
  return mark === undefined ? `[edgeform:${stack}]` : `[edgeform:${stack}:${mark}]`;
}

/** A live description split into the user's text, the stack its mark names (null: no mark) and its owner mark (absent: none). */
export function splitMark(description: string | null | undefined): { text: string; stack: string | null; mark?: string } {
  const live = description ?? '';
  const match = MARK.exec(live);
  if (!match) return { text: live, stack: null };
  return { text: live.slice(0, match.index), stack: must(match[1], 'match[1]'), ...(match[2] === undefined ? {} : { mark: match[2] }) };
}

/** The description to send: the user's text with the stack's mark (and owner mark, when given) appended; none without a stack. */
export function withMark(text: string, stack: string | null, mark?: string): string {
  if (stack === null) return text;
  return text === '' ? stackMark(stack, mark) : `${text} ${stackMark(stack, mark)}`;
}

/** What an owner mark of a CDN resource binds: the stack and the cname (unique on the platform, never changed by edgeform). */
export const cdnMarkSubject = (stack: string, cname: string) => ({ type: 'cdn_resource', stack, address: '', identity: cname });
import { must } from '../../errors.js';
