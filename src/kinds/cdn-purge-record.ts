/**
 * The record of the purges edgeform made for a CDN resource and its rules: for each block's
 * `purge.when`, the value it last purged for (so a plan knows whether a purge is due without a
 * state file). The platform keeps it as the last token of the resource's description, after the
 * stack mark (cdn-resource/mark.ts): `TEXT [edgeform:STACK] [edgeform-purged:resource=42,rule-17=v1.2]`.
 * It is the outermost layer: stripped first (the rest is the description as the mark knows it),
 * appended last, so the mark's format stays the mark's own. Rules have no free-text field on the
 * platform (their name is their identity), so theirs is kept here too, by rule id. Values are
 * percent-encoded: no space, comma, `=` or `]` can break the token.
 */
const RECORD = /\s?\[edgeform-purged:([^\]\s]*)\]$/;

/** Each block's last purged-for value: `resource` for the resource itself, `rule-ID` for a rule. */
export type PurgeRecord = Readonly<Record<string, string>>;

/** The record's key of the resource itself. */
export const RESOURCE_KEY = 'resource';

/** The record's key of a rule of the resource. */
export const ruleKey = (ruleId: number): string => `rule-${ruleId}`;

/** A live description split into the rest (the user's text and the stack mark) and the purge record (empty: none). */
export function splitPurgeRecord(description: string | null | undefined): { rest: string; record: PurgeRecord } {
  const live = description ?? '';
  const match = RECORD.exec(live);
  if (!match) return { rest: live, record: {} };
  const record: Record<string, string> = {};
  for (const entry of must(match[1], 'match[1]').split(',')) {
    const at = entry.indexOf('=');
    if (at <= 0) continue;
    try {
      record[entry.slice(0, at)] = decodeURIComponent(entry.slice(at + 1));
    } catch {
      // A hand-edited entry that does not decode counts as no record (the next purge writes it again).
    }
  }
  return { rest: live.slice(0, match.index), record };
}

/** The description with the purge record appended (nothing appended for an empty record). */
export function withPurgeRecord(rest: string, record: PurgeRecord): string {
  const keys = Object.keys(record).sort();
  if (keys.length === 0) return rest;
  const token = `[edgeform-purged:${keys.map((k) => `${k}=${encodeURIComponent(must(record[k], 'record[k]'))}`).join(',')}]`;
  return rest === '' ? token : `${rest} ${token}`;
}

/** A live description with one key of its record set to `value`, everything else as it was. */
export function recordPurge(description: string | null | undefined, key: string, value: string): string {
  const { rest, record } = splitPurgeRecord(description);
  return withPurgeRecord(rest, { ...record, [key]: value });
}
import { must } from '../errors.js';
