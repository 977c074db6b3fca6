import fc from 'fast-check';
import { describe, it } from 'vitest';
import { document, expectSameReading, RUNS } from '../../helpers/plain-yaml.js';

/**
 * The fast reading of YAML (plain-yaml.ts) over generated YAML with a few characters inserted
 * or cut: mostly texts that are not YAML or that the two parsers read differently, where the
 * fast reading must build what the yaml library builds or leave the text to it. A separate
 * contract from plain-yaml.test.ts (valid YAML read the same both ways), in its own file so
 * the two run on both workers. Shrinking is off (endOnFailure): the counterexample is printed whole.
 */

describe('plain-yaml: the fast reading builds what the yaml library builds', () => {
  it('over mutated YAML: where js-yaml accepts what the yaml library refuses, the fast reading must not decide', () => {
    const edits = fc.array(
      fc.tuple(
        fc.nat(),
        fc.constantFrom('', ':', '-', ' ', '  ', '\n', '\t', '"', "'", '#', '[', ']', '{', '}', ',', '?', '|', '>', '&a', '*a', '!!str', '%', '---', '\r\n', '\r'),
      ),
      {
        minLength: 1,
        maxLength: 3,
      },
    );
    fc.assert(
      fc.property(document, edits, (text, changes) => {
        let mutated = text;
        for (const [at, insert] of changes) {
          const i = at % (mutated.length + 1);
          const cut = insert === '' ? 1 : 0;
          mutated = mutated.slice(0, i) + insert + mutated.slice(i + cut);
        }
        expectSameReading(mutated);
      }),
      { numRuns: 1500 * RUNS, endOnFailure: true },
    );
  });
});
