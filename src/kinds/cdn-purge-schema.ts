import { must } from '../errors.js';
import { z } from 'zod';

/**
 * The `purge:` field of a CDN resource or rule, and the offline checks of what it purges, as
 * the vendor's purge-cache operation (cdn_api.yaml, ResourcePurge) takes it: exact URLs (`urls`),
 * patterns (`paths`, `*` only at the end) or everything (`all: true`), each starting with `/`
 * and naming no domain. A rule's purge is scoped by its pattern (see checkRuleScope).
 */

/** What one stack may list in one purge (edgeform splits it into requests the platform takes). */
export const MAX_PURGE_ITEMS = 1000;

/** Why a URL to purge is not one the platform takes, or null when it is fine. */
export function urlProblem(url: string): string | null {
  return startProblem(url) ?? (url.includes('*') ? 'a URL is purged exactly and * is no wildcard in it: list patterns under paths instead' : null);
}

/** Why a pattern to purge is not one the platform takes, or null when it is fine. */
export function patternProblem(pattern: string): string | null {
  const start = startProblem(pattern);
  if (start !== null) return start;
  const star = pattern.indexOf('*');
  return star !== -1 && star !== pattern.length - 1 ? 'the vendor allows * only at the end of a pattern (/assets/*)' : null;
}

function startProblem(value: string): string | null {
  if (!value.startsWith('/')) return /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? 'must be a path without the domain: drop the scheme and host' : 'must start with /';
  if (value.startsWith('//')) return 'must be a path without the domain (it starts with //)';
  if (/[\s\u0000-\u001f\u007f]/.test(value)) return 'must not contain spaces or control characters (percent-encode them)';
  return null;
}

const purgeUrl = z
  .string()
  .max(2048, { error: 'a URL must be at most 2048 characters' })
  .superRefine((value, ctx) => {
    const problem = urlProblem(value);
    if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
  });
const purgePattern = z
  .string()
  .max(2048, { error: 'a pattern must be at most 2048 characters' })
  .superRefine((value, ctx) => {
    const problem = patternProblem(value);
    if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
  });

const shape = z.strictObject({
  paths: z
    .array(purgePattern)
    .min(1, { error: 'list at least one pattern (or use all: true)' })
    .max(MAX_PURGE_ITEMS, { error: `at most ${MAX_PURGE_ITEMS} patterns` })
    .optional()
    .describe('Patterns to purge (purge by pattern): each starts with /, * only at the end (/assets/*); recursive, as the vendor purges them.'),
  urls: z
    .array(purgeUrl)
    .min(1, { error: 'list at least one URL' })
    .max(MAX_PURGE_ITEMS, { error: `at most ${MAX_PURGE_ITEMS} URLs` })
    .optional()
    .describe('Exact URLs to purge (purge by URL): each starts with / and names no domain; query strings included.'),
  all: z
    .literal(true, { error: 'must be true (or leave it out)' })
    .optional()
    .describe("true: purge the whole cache of the resource (of a rule: everything its pattern's literal prefix covers)."),
  when: z
    .union([z.string().min(1, { error: 'must not be empty' }).max(100, { error: 'must be at most 100 characters' }), z.number()], {
      error: 'must be a string or a number, usually ${env:RELEASE}',
    })
    .optional()
    .describe(
      'Any value, usually ${env:RELEASE}: apply purges when it differs from the value last purged for (recorded on the platform). Without it, apply never purges; the block only gives edgeform purge its default.',
    ),
});

/** The `purge:` field: exactly one of paths, urls and all: true, and when. */
export const purgeField = shape.superRefine((value, ctx) => {
  const given = (['paths', 'urls', 'all'] as const).filter((k) => value[k] !== undefined);
  if (given.length === 0) ctx.addIssue({ code: 'custom', message: 'says what to purge: paths, urls or all: true' });
  if (given.length > 1) ctx.addIssue({ code: 'custom', path: [must(given[1], 'given[1]')], message: `set one of paths, urls and all: true, not ${given.join(' and ')}` });
});

/** A block's `purge:` as the schema reads it. */
export type PurgeSpec = z.infer<typeof shape>;

/** What to purge: exact URLs, patterns, or everything (the vendor's three purge types). */
export type PurgeTarget = { type: 'urls'; items: string[] } | { type: 'paths'; items: string[] } | { type: 'all' };

/** The literal start of a rule's pattern (a regular expression): what every path it matches begins with. */
export function rulePrefix(rule: string, ruleType: 0 | 1 | undefined): string {
  let pattern = rule.startsWith('^') ? rule.slice(1) : rule;
  if (ruleType === 1 || !pattern.startsWith('/')) pattern = `/${pattern}`;
  let prefix = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = must(pattern[i], 'pattern[i]');
    if (ch === '\\' && i + 1 < pattern.length && !/[a-zA-Z0-9]/.test(must(pattern[i + 1], 'pattern[i + 1]'))) {
      if (/[?*{]/.test(pattern[i + 2] ?? '')) break;
      prefix += pattern[++i];
      continue;
    }
    if ('.*+?()[]{}|\\$^'.includes(ch)) break;
    // A literal followed by a quantifier that allows none of it is not part of every match.
    if (/[?*{]/.test(pattern[i + 1] ?? '')) break;
    prefix += ch;
  }
  return prefix === '' ? '/' : prefix;
}

/** The rule's pattern as a JavaScript regular expression (the platform's is nginx's PCRE), or null when it does not compile here. */
function ruleRegExp(rule: string, ruleType: 0 | 1 | undefined): RegExp | null {
  try {
    return new RegExp(ruleType === 1 ? `/${rule}` : rule);
  } catch {
    return null;
  }
}

/**
 * What a rule's purge covers: its URLs and patterns as declared, or, for `all: true`, the
 * pattern of the rule's literal prefix (`/images/.*\.png$` → `/images/*`), the smallest pattern
 * purge that covers every path the rule matches.
 */
export function ruleTarget(purge: Pick<PurgeSpec, 'paths' | 'urls' | 'all'>, rule: string, ruleType: 0 | 1 | undefined): PurgeTarget {
  if (purge.urls) return { type: 'urls', items: purge.urls };
  if (purge.paths) return { type: 'paths', items: purge.paths };
  return { type: 'paths', items: [`${rulePrefix(rule, ruleType).replace(/\*+$/, '')}*`] };
}

/**
 * Where a rule's purge reaches outside the rule's pattern, each with the index it is at: a URL
 * the pattern does not match, a pattern that does not start with the rule's literal prefix.
 * A pattern that does not compile as a JavaScript regular expression checks URLs by its prefix.
 */
export function ruleScopeProblems(
  purge: Pick<PurgeSpec, 'paths' | 'urls'>,
  rule: string,
  ruleType: 0 | 1 | undefined,
): Array<{ field: 'urls' | 'paths'; index: number; message: string }> {
  const prefix = rulePrefix(rule, ruleType);
  const regex = ruleRegExp(rule, ruleType);
  const out: Array<{ field: 'urls' | 'paths'; index: number; message: string }> = [];
  (purge.urls ?? []).forEach((url, index) => {
    const path = url.replace(/\?.*/s, '');
    const inside = regex === null ? path.startsWith(prefix) : regex.test(path);
    if (!inside)
      out.push({ field: 'urls', index, message: `is outside the rule's pattern ${JSON.stringify(rule)}: a rule purges only what it matches (purge it on the resource)` });
  });
  (purge.paths ?? []).forEach((pattern, index) => {
    if (!pattern.replace(/\*$/, '').startsWith(prefix.replace(/\*$/, ''))) {
      out.push({
        field: 'paths',
        index,
        message: `reaches outside the rule's pattern ${JSON.stringify(rule)}: a rule's patterns start with ${prefix} (purge wider on the resource)`,
      });
    }
  });
  return out;
}
