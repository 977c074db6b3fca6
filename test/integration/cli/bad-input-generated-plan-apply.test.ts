import { describe } from 'vitest';
import { corpusRunner, describeRefusals, generatedCases } from '../../helpers/bad-input.js';

/**
 * The huge and pathological stacks of the bad-input corpus, the error-heavy ones at their
 * in-process scale (CaseScale in test/helpers/bad-input.ts), generated into a temporary
 * directory, through plan and apply in-process; through validate in
 * bad-input-generated.test.ts (two files, so the two workers share the parsing).
 * Each must be refused with located errors and exit 1, without a stack trace or "bug in
 * edgeform", without a raw control character or the API key in the output, with bounded output,
 * and with nothing sent to the platform (plan and apply point at a loopback server that records
 * every request).
 */

const corpus = corpusRunner();

describe('the bad-input corpus', () => {
  describeRefusals(generatedCases('in-process'), corpus, ['plan and apply']);
});
