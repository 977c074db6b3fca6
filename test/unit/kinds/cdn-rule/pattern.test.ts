import { describe, expect, it } from 'vitest';
import { regexProblem, rulePatternProblem } from '../../../../src/kinds/cdn-rule/schema.js';

describe('a CDN rule pattern', () => {
  it.each(['/images/.*\\.png$', '^/static/', '/a(b|c)?/[0-9]{2,}', '/x'])('%s is accepted as rule_type 0', (pattern) => {
    expect(rulePatternProblem(pattern, 0)).toBeNull();
  });

  it('of rule_type 0 must start with "/" or "^/", and the message shows the pattern with it', () => {
    expect(rulePatternProblem('images/.*', 0)).toBe('must start with "/" or "^/" (rule_type 0 matches the whole path), e.g. "/images/.*"');
    expect(rulePatternProblem('^images/', 0)).toBe('must start with "/" or "^/" (rule_type 0 matches the whole path), e.g. "/images/"');
  });

  it('of rule_type 1 (legacy: "/" is put before it) needs no leading "/"', () => {
    expect(rulePatternProblem('images/.*', 1)).toBeNull();
  });

  it.each([
    ['/images/(.*', 'unterminated group'],
    ['/a[b', 'unterminated character class'],
    ['*.png', 'nothing to repeat'],
    ['/a{3,1}', 'numbers out of order in {} quantifier'],
    ['/[z-a]', 'range out of order in character class'],
  ])('%s is refused: %s', (pattern, reason) => {
    expect(regexProblem(pattern)).toBe(`must be a regular expression the platform compiles: ${reason}`);
  });

  it.each(['/(?>atomic)', '/a++b*+c?+', '/(?i)case', '/(?i:case)', '/x\\Z', '\\A/x', '/(?P<n>a)(?P=n)', '/a(?# comment)b'])(
    '%s (PCRE-only syntax the platform compiles) is accepted',
    (pattern) => {
      expect(regexProblem(pattern)).toBeNull();
    },
  );
});
