import { Ajv2020, type Options } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS; under NodeNext its default import is the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (ajv: Ajv2020) => Ajv2020;

/**
 * A JSON Schema 2020-12 validator with the standard formats (date-time, email, uuid, ...). What
 * ajv would only log (a format it does not know, which it then ignores) is an error instead: a
 * format is declared (test/helpers/openapi.ts declares the vendor's), never silently skipped,
 * and the test log stays free of ajv's warnings.
 */
export function createAjv(options: Options = {}): Ajv2020 {
  const ajv = new Ajv2020({
    strict: false,
    allErrors: true,
    logger: {
      log: () => undefined,
      warn: (...args: unknown[]) => {
        throw new Error(`ajv: ${args.join(' ')} (declare the format: test/helpers/openapi.ts)`);
      },
      error: (...args: unknown[]) => {
        throw new Error(`ajv: ${args.join(' ')}`);
      },
    },
    ...options,
  });
  addFormats(ajv);
  return ajv;
}
