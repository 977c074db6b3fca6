import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadStack } from '../../../src/config/load-stack.js';
import { foldTagKey, lookalikeOf } from '../../../src/kinds/tag-key-lookalike.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

const stackWithTag = (key: string) => `version: 1
name: prod
defaults: { project_id: 1, region_id: 76 }
resources:
  web_ip:
    type: cloud_floating_ip
    tags:
      env: prod
      "${key}": x
`;

async function diagnosticsOf(key: string) {
  const dir = writeStackFiles({ 'stack.yaml': stackWithTag(key) });
  return (await loadStack(join(dir, 'stack.yaml'), {})).diagnostics;
}

describe('a declared tag key that looks like an ownership tag key', () => {
  const lookalikes: Array<[string, string]> = [
    ['EDGEFORM-STACK', 'edgeform-stack'],
    ['Edgeform-Address', 'edgeform-address'],
    ['\u0435dgeform-stack', 'edgeform-stack'], // Cyrillic е
    ['edgef\u043erm-address', 'edgeform-address'], // Cyrillic о
    ['edgeform\u2010stack', 'edgeform-stack'], // Unicode hyphen
    ['\uff45dgeform-stack', 'edgeform-stack'], // fullwidth e
    ['edge\u200bform-stack', 'edgeform-stack'], // zero-width space
    ['edgefοrm-stack', 'edgeform-stack'], // Greek omicron
    ['Edgeform-team', 'edgeform-*'],
  ];

  it.each(lookalikes)('%j is a validate error at the key, naming %s', async (key, like) => {
    const diagnostics = await diagnosticsOf(key);
    const errors = diagnostics.filter((d) => d.severity === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.summary + (errors[0]!.detail ?? '')).toContain(`"${like}"`);
    expect(errors[0]!.range?.start).toEqual({ line: 9, column: 7 });
  });

  it('keys that merely resemble one are accepted', async () => {
    for (const key of ['edgeform_stack', 'stack', 'my-edgeform-stack', 'edge-form-stack']) {
      expect(
        (await diagnosticsOf(key)).filter((d) => d.severity === 'error'),
        key,
      ).toEqual([]);
    }
  });

  it('folds case, compatibility forms, marks, invisibles and look-alike letters', () => {
    expect(foldTagKey('ЕDGЕFОRМ-SТАСК')).toBe('edgeform-stack');
    expect(foldTagKey('édgeform-stack')).toBe('edgeform-stack');
    expect(lookalikeOf('edgeform-stack', ['edgeform-stack'], 'edgeform-')).toBeUndefined();
    expect(lookalikeOf('env', ['edgeform-stack'], 'edgeform-')).toBeUndefined();
  });
});
