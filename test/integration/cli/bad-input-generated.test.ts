import { describe, expect, it } from 'vitest';
import { committedCases, corpusRunner, describeRefusals, generatedCases } from '../../helpers/bad-input.js';

/**
 * The huge and pathological stacks of the bad-input corpus (a 17 MiB file, 20,000 errors in one
 * list, 100,000 nested lists, ...; the error-heavy ones at their in-process scale, see CaseScale
 * in test/helpers/bad-input.ts), generated into a temporary directory, through validate in-process;
 * through plan and apply in bad-input-generated-plan-apply.test.ts (two files, so the two
 * workers share the parsing). The committed ones are in bad-input.test.ts, and the generated
 * ones also run, at their full scale (200,000 errors in one list), as a process whose V8 heap is
 * capped (test/e2e/bad-input.test.ts).
 * Each must be refused with located errors and exit 1, without a stack trace or "bug in
 * edgeform", without a raw control character or the API key in the output, with bounded output,
 * and with nothing sent to the platform (plan and apply point at a loopback server that records
 * every request).
 */

const corpus = corpusRunner();
const generated = generatedCases('in-process');

describe('the bad-input corpus', () => {
  it('has at least 60 bad stacks', () => {
    expect(committedCases().length + generated.length).toBeGreaterThanOrEqual(60);
  });

  describeRefusals(generated, corpus, ['validate']);

  it('cuts the frame of a 2 MB value to a window, so the error costs a few hundred bytes', async () => {
    const path = generated.find((c) => c.name === 'a 2 MB value')!.path;
    const result = await corpus.run(['validate', path], {});
    expect(result.stderr.length).toBeLessThan(2_000);
    expect(result.stderr).toMatch(/> 5 \| {5}app_id: "x+…\n/);
  });
});
