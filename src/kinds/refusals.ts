import { KNOWN_AFTER_APPLY } from '../plan/types.js';
import { parseTemplate } from '../model/references.js';
import { suggest } from './did-you-mean.js';
import type { PlanProblem } from './provider.js';

/**
 * What the platform would refuse a create for, found before anything is sent: a value that names
 * something (an SSH key, an image, a zone) none of which exists in its place. A kind's read of a
 * block it would create gathers what exists (one list a place, shared through readOnce) into the
 * observation's facts, together with what the stack's other blocks create in the same apply; its
 * pure create plan checks the block's values against them with {@link notAmong}.
 */

/**
 * Whether a value as the read sees it (references not yet resolved) is written out: a reference's
 * value is another block's, which exists or is created by the stack, so it needs no list.
 */
export function isWrittenOut(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  return (parseTemplate(value) ?? []).every((part) => typeof part === 'string');
}

/** One thing of a list a value may name: its key (what the value must equal) and, when it differs, a label for messages. */
export interface Known {
  key: string;
  label?: string;
}

/** What a check of a value against a list says in its message. */
export interface Among {
  /** The value's field in the block (where the error points). */
  field: string;
  /** Where in that field, when deeper (`rules[2].remote_group_id`): what the message names instead of the field. */
  path?: string;
  /** What the list holds, singular: `SSH key`. */
  noun: string;
  /** Where: `in project 1`, `in region 76`. */
  where: string;
  /** The way out besides a typo: how to have edgeform make it first. */
  instead?: string;
  /** false: no did-you-mean (short integer ids, where the closest is no likely typo). */
  suggest?: boolean;
}

/** Lists at most this many of the candidates in a message. */
const SHOWN = 10;

/**
 * The plan error of a value none of `known` has (a did-you-mean from the closest key), or null
 * when it is among them or not known at plan (`(known after apply)`). Pure.
 */
export function notAmong(value: unknown, known: readonly Known[], among: Among): PlanProblem | null {
  if (typeof value !== 'string' || value === KNOWN_AFTER_APPLY || known.some((k) => k.key === value)) return null;
  const keys = known.map((k) => k.key);
  const match = among.suggest === false ? undefined : suggest(value, keys);
  const labelled = (k: Known) => (k.label === undefined || k.label === k.key ? k.key : `${k.key} (${k.label})`);
  const shown = known.slice(0, SHOWN).map(labelled).join(', ');
  const more = known.length > SHOWN ? `, and ${known.length - SHOWN} more` : '';
  return {
    field: among.field,
    summary: `${among.path ?? among.field} ${JSON.stringify(value)} names no ${among.noun} ${among.where}${match === undefined ? '' : `; did you mean ${JSON.stringify(match)}?`}`,
    detail: `${known.length === 0 ? `There is no ${among.noun} ${among.where}.` : `${cap(among.noun)}s ${among.where}: ${shown}${more}.`}${among.instead === undefined ? '' : ` ${among.instead}`} The platform would refuse the create; nothing was sent.`,
  };
}

const cap = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** The facts' list under `key` (see Observation.facts), or undefined when the read gathered none. */
export function knownIn(facts: Readonly<Record<string, unknown>> | undefined, key: string): Known[] | undefined {
  const list = facts?.[key];
  return Array.isArray(list) ? (list as Known[]) : undefined;
}

/**
 * What a create plan gathers for an integer id written out (a reference is a template string at
 * read time, or KNOWN_AFTER_APPLY at plan): whether the read should fetch the list it names.
 */
export const isWrittenOutId = (value: unknown): value is number => typeof value === 'number';
