/**
 * A CDN rule's path pattern as the platform accepts it (the vendor's `rule` and `ruleType`): a
 * regular expression of at most 300 characters; with rule type 0 it must start with `/` or `^/`
 * (type 1, legacy, has `/` put before it). The platform compiles patterns as PCRE: syntax only
 * PCRE has (atomic groups, possessive quantifiers, inline flags, `\A`, `\Z`, `(?P<name>...)`,
 * comments) is accepted; anything that is no regular expression in either (an unclosed group or
 * class, a quantifier with nothing to repeat, a range out of order) is refused. Pure.
 */

/** PCRE-only syntax, each rewritten to an ECMAScript equivalent of the same shape before compiling. */
const PCRE_ONLY: ReadonlyArray<readonly [RegExp, string]> = [
  [/\(\?#[^)]*\)/g, ''], // (?# comment)
  [/\(\?>/g, '(?:'], // atomic group
  [/\(\?P<([A-Za-z_]\w*)>/g, '(?<$1>'], // Python-style named group
  [/\(\?P=([A-Za-z_]\w*)\)/g, '\\k<$1>'], // its back reference
  [/\(\?[imsxU-]+\)/g, ''], // inline flags for the rest of the pattern
  [/\(\?[imsxU-]+:/g, '(?:'], // inline flags of a group
  [/\\[AZzG]/g, ''], // anchors ECMAScript does not have
  [/([*+?}])\+/g, '$1'], // possessive quantifiers
];

/** Why `pattern` is not a regular expression the platform compiles, or null when it is one. */
export function regexProblem(pattern: string): string | null {
  let text = pattern;
  for (const [pcre, ecma] of PCRE_ONLY) text = text.replace(pcre, ecma);
  try {
    new RegExp(text);
    return null;
  } catch (error) {
    // V8's message names the pattern and the reason: "Invalid regular expression: /x(/: Unterminated group".
    const reason = (error as Error).message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, '');
    return `must be a regular expression the platform compiles: ${reason.charAt(0).toLowerCase()}${reason.slice(1)}`;
  }
}

/** Why a rule of `ruleType` (0 or 1) cannot have `pattern`, or null. */
export function rulePatternProblem(pattern: string, ruleType: 0 | 1): string | null {
  if (ruleType === 0 && !pattern.startsWith('/') && !pattern.startsWith('^/'))
    return `must start with "/" or "^/" (rule_type 0 matches the whole path), e.g. "/${pattern.replace(/^\^/, '')}"`;
  return regexProblem(pattern);
}
