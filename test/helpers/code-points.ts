import fc from 'fast-check';

/** Code points below the surrogates; the 2,048 surrogates (U+D800–U+DFFF) follow. */
const BELOW_SURROGATES = 0xd800;
const SURROGATES = 0x800;

/**
 * Any one code point but a lone surrogate: the same values, drawn the same way, as
 * fast-check's `fc.string({ unit: 'binary' })` draws its characters (an index biased to small
 * values, so ASCII and controls come often, mapped over U+0000–U+D7FF and U+E000–U+10FFFF),
 * without its cost: fast-check builds a map of all 1,112,064 code points, taking 3–9 s, the
 * first time a test file asks for a `binary` string. The unmapper lets fc.string still mix in
 * its known troublesome strings (`__proto__`, `constructor`, ...).
 */
export const anyCodePoint: fc.Arbitrary<string> = fc.nat({ max: 0x10ffff - SURROGATES }).map(
  (n) => String.fromCodePoint(n < BELOW_SURROGATES ? n : n + SURROGATES),
  (value) => {
    if (typeof value !== 'string') throw new Error('not a string');
    const c = value.codePointAt(0);
    if (c === undefined || String.fromCodePoint(c) !== value || (c >= BELOW_SURROGATES && c < BELOW_SURROGATES + SURROGATES)) throw new Error('not one code point');
    return c < BELOW_SURROGATES ? c : c - SURROGATES;
  },
);

/** Strings of any code points (see anyCodePoint): `fc.string({ unit: 'binary', ...constraints })`, cheaply. */
export function anyString(constraints: Omit<fc.StringConstraints, 'unit'> = {}): fc.Arbitrary<string> {
  return fc.string({ ...constraints, unit: anyCodePoint });
}
