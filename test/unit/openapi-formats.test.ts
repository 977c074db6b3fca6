import { readdirSync, readFileSync } from 'node:fs';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { createAjv } from '../helpers/ajv.js';
import { addVendorFormats, OPENAPI_DIR } from '../helpers/openapi.js';

/**
 * The contract tests' validator knows every format the vendor's specs use (checked, or declared
 * descriptive in test/helpers/openapi.ts), so ajv never logs "unknown format ... ignored" into
 * the CI log, nor skips a check it was meant to make; a format it does not know is an error.
 */
const SPECS = readdirSync(OPENAPI_DIR).filter((name) => name.endsWith('.yaml'));

/** Every `format` a document's schemas declare. */
function formatsOf(node: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const item of node) formatsOf(item, into);
  else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'format' && typeof value === 'string') into.add(value);
      else formatsOf(value, into);
    }
  }
  return into;
}

describe("the contract tests' schema validator", () => {
  const known = addVendorFormats(createAjv({ validateFormats: true })).formats;

  it.each(SPECS)('knows every format %s uses', (file) => {
    const formats = formatsOf(load(readFileSync(new URL(file, OPENAPI_DIR), 'utf8')));
    expect(formats.size).toBeGreaterThan(0);
    expect([...formats].filter((format) => !Object.hasOwn(known, format))).toEqual([]);
  });

  it('checks the vendor network formats, and refuses a format it does not know instead of logging it', () => {
    const network = addVendorFormats(createAjv({ validateFormats: true })).compile({ type: 'string', format: 'ipvanynetwork' });
    expect(['10.0.0.0/24', 'fd00::/64'].map((v) => network(v))).toEqual([true, true]);
    expect(['10.0.0.0', '10.0.0.0/33', 'x/8'].map((v) => network(v))).toEqual([false, false, false]);
    expect(() => createAjv({ validateFormats: true }).compile({ type: 'string', format: 'made-up' })).toThrow(/unknown format "made-up"/);
  });
});
