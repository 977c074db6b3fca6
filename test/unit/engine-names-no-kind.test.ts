import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { CHECK_TYPES, RESOURCE_TYPES } from '../../src/kinds/registry.js';

const ENGINE = ['src/config', 'src/plan', 'src/apply'];

/**
 * Where a module's code (comments are not code) names a kind as a value, each as `file:line text`:
 * a string that is a kind's type or starts an address with it (`'dns_rrset'`, `` `dns_rrset.${name}` ``),
 * or a property read by a kind's name (`RESOURCE_KINDS.dns_rrset`). A message that gives a kind
 * as an example (`depends_on: [cloud_instance.web_vm]`) is no such use.
 */
function kindNames(file: string, text: string): string[] {
  const types = [...RESOURCE_TYPES, ...CHECK_TYPES].join('|');
  const value = new RegExp(`^(${types})(\\.|$)`);
  const name = new RegExp(`^(${types})$`);
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const at = (node: ts.Node, what: string) => found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1} ${what}`);
  const visit = (node: ts.Node) => {
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node)) && value.test(node.text)) at(node, node.text);
    if (ts.isPropertyAccessExpression(node) && name.test(node.name.text)) at(node, node.getText(source));
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the engine names no kind (a family is declarations: docs/architecture.md "Adding a resource kind")', () => {
  it('has no kind type in the code of src/config/, src/plan/ or src/apply/: what a kind needs there it declares in its KindSpec', () => {
    const found = ENGINE.flatMap((dir) =>
      readdirSync(dir, { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.ts'))
        .flatMap((f) => kindNames(join(dir, f), readFileSync(join(dir, f), 'utf8'))),
    );
    expect(found).toEqual([]);
  });

  it('finds a kind named in code, and not one named in a comment (positive control)', () => {
    const code = [
      "// a 'dns_rrset' in a comment",
      "const t = 'dns_rrset';",
      'const a = `dns_zone.${t}`;',
      'const k = RESOURCE_KINDS.dns_rrset;',
      "const m = 'write depends_on: [cloud_instance.web_vm]';",
    ].join('\n');
    expect(kindNames('a.ts', code)).toEqual(['a.ts:2 dns_rrset', 'a.ts:3 dns_zone.', 'a.ts:4 RESOURCE_KINDS.dns_rrset']);
  });
});
