import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MIN_FRAGMENT_LENGTH, REDACTED, redact } from '../../../src/api/redact.js';
import { anyString } from '../../helpers/code-points.js';

/**
 * Property-based tests of redaction: for any key, in any form, anywhere in any text, no run of
 * MIN_FRAGMENT_LENGTH characters of it (or of its encodings) survives; redaction is idempotent;
 * text without the key is left alone.
 */

const HEX = [...'0123456789abcdef'];
/** A key of the platform's shape: `<id>$<64 lowercase hex>`, with short and long ids. */
const platformKey = fc
  .tuple(
    fc.oneof(fc.integer({ min: 1, max: 99_999 }), fc.integer({ min: 10_000_000, max: 2_147_483_647 })),
    fc.string({ unit: fc.constantFrom(...HEX), minLength: 64, maxLength: 64 }),
  )
  .map(([id, hex]) => `${id}$${hex}`);

/**
 * Any key with a `$`: printable Latin-1 without blanks (an HTTP header carries nothing else),
 * and without `[`/`]`, the brackets of the [REDACTED] marker (a key that shares characters
 * with the marker could match across it, and redacting twice would then differ).
 */
const KEY_CHARS = [
  ...Array.from({ length: 0x7f - 0x21 }, (_, i) => String.fromCharCode(0x21 + i)),
  ...Array.from({ length: 0x100 - 0xa1 }, (_, i) => String.fromCharCode(0xa1 + i)),
].filter((c) => c !== '[' && c !== ']');
const anyKey = fc
  .tuple(fc.string({ unit: fc.constantFrom(...KEY_CHARS), minLength: 1, maxLength: 20 }), fc.string({ unit: fc.constantFrom(...KEY_CHARS), minLength: 16, maxLength: 70 }))
  .map(([a, b]) => `${a}$${b}`)
  .filter((k) => !k.includes('REDACTED'));

const keys = fc.oneof(platformKey, anyKey);
/** Surrounding text: printable ASCII, any code points (controls included), or words. */
const text = fc.oneof(fc.string({ maxLength: 40 }), anyString({ maxLength: 40 }), fc.lorem({ maxCount: 6 }));

const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');
const b64url = (s: string | Buffer) => Buffer.from(s).toString('base64url');
const publicId = (key: string) => /^\d+(?=\$)/.exec(key)?.[0].length ?? 0;

/** The runs of MIN_FRAGMENT_LENGTH characters of `s` that carry secret material (not only the public id). */
function windows(s: string, publicPrefix = 0): string[] {
  const out: string[] = [];
  for (let i = 0; i + MIN_FRAGMENT_LENGTH <= s.length; i++) if (i + MIN_FRAGMENT_LENGTH > publicPrefix) out.push(s.slice(i, i + MIN_FRAGMENT_LENGTH));
  return out;
}

/** One assertion per case, not one per window: the windows that survived, which must be none. */
function expectNoWindowOf(out: string, s: string, publicPrefix = 0): void {
  expect(windows(s, publicPrefix).filter((w) => out.includes(w))).toEqual([]);
}

/** The forms edgeform must find for any key: the canonical encodings of it and of its header. */
function canonicalForms(key: string): string[] {
  const html = (escape: RegExp, style: (c: string) => string) => key.replace(escape, style);
  const dec = (c: string) => `&#${c.codePointAt(0)};`;
  const hex = (c: string) => `&#x${c.codePointAt(0)!.toString(16)};`;
  const named = (c: string) => ({ $: '&dollar;', '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] ?? dec(c);
  return [
    key,
    encodeURIComponent(key),
    JSON.stringify(key).slice(1, -1),
    html(/[&<>"']/g, dec),
    html(/[&<>"'$]/g, named),
    html(/[^A-Za-z0-9]/g, hex),
    html(/[^A-Za-z0-9]/g, dec),
    b64(key),
    b64url(key),
    b64(`APIKey ${key}`),
    b64url(`APIKey ${key}`),
    b64(`Authorization: APIKey ${key}`),
  ];
}

/** Forms of a platform key an escaper may produce besides the canonical ones, and line wrapping. */
const platformVariants = (key: string, split: number, indent: string): string[] => [
  key.replace('$', '&#X24;'),
  key.replace('$', '&#x24'),
  key.replace('$', '&#036;'),
  key.replace('$', '\\u0024'),
  key.replace('$', '\\x24'),
  `${key.slice(0, split)}\n${indent}${key.slice(split)}`,
  `${key.slice(0, split)}\r\n${indent}${key.slice(split)}`,
  b64(`APIKey ${key}`).replace(/(.{76})/g, '$1\r\n'),
];

describe('redact (properties)', () => {
  it('leaves no run of 8 characters of the key, in any canonical form, anywhere in any text', () => {
    fc.assert(
      fc.property(keys, text, text, fc.nat(), (key, before, after, pick) => {
        const forms = canonicalForms(key);
        const form = forms[pick % forms.length]!;
        const out = redact(`${before}${form}${after}`, [key]);
        expect(out).not.toContain(form);
        expectNoWindowOf(out, key, publicId(key));
        if (pick % forms.length < 7) expectNoWindowOf(out, form, publicId(key));
      }),
      { numRuns: 400 },
    );
  });

  it('finds a platform key in non-canonical escapes and wrapped over two lines', () => {
    fc.assert(
      fc.property(platformKey, text, text, fc.nat(), fc.integer({ min: 1, max: 69 }), fc.constantFrom('', '  ', '\t', '      '), (key, before, after, pick, split, indent) => {
        const variants = platformVariants(key, split, indent);
        const form = variants[pick % variants.length]!;
        const out = redact(`${before} ${form} ${after}`, [key]);
        expect(out).not.toContain(form);
        expectNoWindowOf(out, key, publicId(key));
        expect(out).toContain(REDACTED);
      }),
      { numRuns: 300 },
    );
  });

  it('leaves no run of 8 characters of any fragment of the key, or of a canonical form, that is 8 or longer', () => {
    fc.assert(
      fc.property(keys, text, text, fc.nat(), fc.nat(), fc.nat(), (key, before, after, pick, a, b) => {
        const forms = canonicalForms(key).slice(0, 7);
        const form = forms[pick % forms.length]!;
        const idLength = publicId(key);
        const start = a % (form.length - MIN_FRAGMENT_LENGTH + 1);
        const end = Math.max(start + MIN_FRAGMENT_LENGTH, idLength + 1, start + (b % (form.length - start + 1)));
        const fragment = form.slice(start, end);
        fc.pre(fragment.length >= MIN_FRAGMENT_LENGTH);
        const out = redact(`${before}${fragment}${after}`, [key]);
        expect(out).not.toContain(fragment);
        expectNoWindowOf(out, key, idLength);
      }),
      { numRuns: 400 },
    );
  });

  it('finds the key inside the base64 of any text that contains it, at every byte alignment', () => {
    fc.assert(
      fc.property(keys, fc.uint8Array({ maxLength: 12 }), fc.uint8Array({ maxLength: 12 }), text, fc.boolean(), (key, head, tail, around, url) => {
        const bytes = Buffer.concat([head, Buffer.from(key), tail]);
        const encoded = url ? b64url(bytes) : b64(bytes);
        // The characters that encode key bytes only: bits [8·head, 8·(head + key)).
        const from = Math.ceil((head.length * 8) / 6);
        const to = Math.floor(((head.length + Buffer.byteLength(key)) * 8) / 6);
        const keyOnly = encoded.slice(from, to);
        const out = redact(`${around}${encoded}${around}`, [key]);
        expectNoWindowOf(out, keyOnly);
      }),
      { numRuns: 300 },
    );
  });

  it('finds the base64 of any fragment of the key', () => {
    fc.assert(
      fc.property(keys, fc.nat(), fc.integer({ min: 9, max: 80 }), text, (key, a, length, around) => {
        const start = a % (key.length - 8);
        // A fragment of the public id alone is not secret: it must reach 6 characters past it.
        fc.pre(Math.min(key.length, start + length) >= publicId(key) + 7);
        const encoded = b64(key.slice(start, start + length));
        const out = redact(`${around}${encoded}${around}`, [key]);
        expect(out).not.toContain(encoded);
        expectNoWindowOf(out, encoded.slice(0, -4));
      }),
      { numRuns: 300 },
    );
  });

  it('is idempotent', () => {
    fc.assert(
      fc.property(keys, text, text, fc.nat(), fc.nat(), (key, before, after, pick, cut) => {
        const forms = canonicalForms(key);
        const form = forms[pick % forms.length]!;
        const piece = cut % 2 === 0 ? form : form.slice(cut % form.length);
        const once = redact(`${before}${piece}${after}${form}`, [key]);
        expect(redact(once, [key])).toBe(once);
      }),
      { numRuns: 400 },
    );
  });

  it('leaves text without the key unchanged: numbers (the public id among them), hex digests, uuids, words, any characters', () => {
    const outputLike = fc
      .tuple(fc.uuid(), fc.string({ unit: fc.constantFrom(...HEX), minLength: 64, maxLength: 64 }), fc.nat(), fc.lorem({ maxCount: 8 }))
      .map(([uuid, digest, n, words]) => `  ~ cloud_floating_ip.web_ip [task ${uuid}] ${words} sha256:${digest} (${n})\n`);
    fc.assert(
      fc.property(platformKey, fc.oneof(text, outputLike), (key, plain) => {
        const id = key.slice(0, key.indexOf('$'));
        const withId = `${plain} project ${id} and ${id}${id}`;
        expect(redact(withId, [key])).toBe(withId);
      }),
      { numRuns: 400 },
    );
  });
});
