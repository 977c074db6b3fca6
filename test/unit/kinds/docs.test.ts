import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CHECK_KINDS, RESOURCE_KINDS } from '../../../src/kinds/registry.js';

/**
 * Each kind documents itself in its folder (src/kinds/KIND/doc.md); docs/stack-file.md holds
 * those fragments verbatim, in registry order, between its "kinds:" markers, so the reference
 * cannot miss a kind or drift from the kind's own page.
 */
const docsFile = new URL('../../../docs/stack-file.md', import.meta.url);
const fragmentFile = (type: string) => new URL(`../../../src/kinds/${type.replaceAll('_', '-')}/doc.md`, import.meta.url);

function region(text: string, section: 'resources' | 'checks'): string {
  const begin = `<!-- kinds: ${section} (each from src/kinds/KIND/doc.md, in registry order) -->\n`;
  const end = `<!-- end of kinds: ${section} -->`;
  const from = text.indexOf(begin);
  const to = text.indexOf(end);
  expect(from, `docs/stack-file.md has the ${section} begin marker`).toBeGreaterThanOrEqual(0);
  expect(to, `docs/stack-file.md has the ${section} end marker after the begin marker`).toBeGreaterThan(from);
  return text.slice(from + begin.length, to);
}

describe('kind documentation', () => {
  const docs = readFileSync(docsFile, 'utf8');

  for (const [section, kinds] of [
    ['resources', RESOURCE_KINDS],
    ['checks', CHECK_KINDS],
  ] as const) {
    const types = Object.keys(kinds);

    it(`every ${section.slice(0, -1)} kind has a doc fragment that opens with its type`, () => {
      expect(types.length).toBeGreaterThan(0);
      for (const type of types) {
        expect(existsSync(fragmentFile(type)), `src/kinds/${type.replaceAll('_', '-')}/doc.md exists`).toBe(true);
        expect(readFileSync(fragmentFile(type), 'utf8')).toMatch(new RegExp(`^### \`${type}\`\n\n`));
      }
    });

    it(`docs/stack-file.md holds every ${section.slice(0, -1)} kind's fragment verbatim, in registry order`, () => {
      const expected = types.map((type) => readFileSync(fragmentFile(type), 'utf8')).join('\n');
      expect(region(docs, section), `paste src/kinds/*/doc.md of the ${section} into docs/stack-file.md between the markers, in registry order`).toBe(expected);
    });
  }
});

describe('readable fields', () => {
  it('every resource kind declares id as readable and documents each readable field in its doc fragment', () => {
    for (const kind of Object.values(RESOURCE_KINDS)) {
      const readable = Object.keys(kind.readable ?? {});
      expect(readable, `${kind.type} declares id`).toContain('id');
      const doc = readFileSync(fragmentFile(kind.type), 'utf8');
      for (const field of readable) expect(doc, `${kind.type}'s doc.md names readable ${field}`).toContain(`\`${field}\` (`);
    }
  });
});

describe('adopt-only kinds', () => {
  it('docs/stack-file.md names as adopt-only exactly the resource kinds edgeform cannot create', () => {
    const docs = readFileSync(docsFile, 'utf8');
    const sentence = /\n((?:`\w+`(?:, | and )?)+) (?:is|are) adopt-only/.exec(docs);
    expect(sentence, 'docs/stack-file.md says which kinds are adopt-only').not.toBeNull();
    const named = [...sentence![1]!.matchAll(/`(\w+)`/g)].map((m) => m[1]);
    const adoptOnly = Object.values(RESOURCE_KINDS)
      .filter((kind) => !kind.create)
      .map((kind) => kind.type);
    expect(named).toEqual(adoptOnly);
  });
});
