import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findSchemaPath } from '../../../src/cli/schema-path.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

/** A directory tree: each path ending in "/" a directory, any other a file. */
function tree(paths: string[]): string {
  const root = writeStackFiles({});
  for (const path of paths) {
    if (path.endsWith('/')) mkdirSync(join(root, path), { recursive: true });
    else {
      mkdirSync(join(root, path, '..'), { recursive: true });
      writeFileSync(join(root, path), '{}');
    }
  }
  return root;
}

describe('the schema line import writes points at the edgeform installed where the stack goes', () => {
  it('finds node_modules/edgeform in the stack directory or the nearest one above it, as Node finds a package', async () => {
    const root = tree(['repo/.git/', 'repo/node_modules/edgeform/edgeform.schema.json', 'repo/stacks/prod/']);
    expect(await findSchemaPath(join(root, 'repo/stack.yaml'))).toBe('./node_modules/edgeform/edgeform.schema.json');
    expect(await findSchemaPath(join(root, 'repo/stacks/prod/stack.yaml'))).toBe('../../node_modules/edgeform/edgeform.schema.json');
  });

  it('takes a schema written beside the stack or above it when no edgeform is installed there, the nearer first', async () => {
    const root = tree(['repo/.git/', 'repo/edgeform.schema.json', 'repo/stacks/', 'repo/other/edgeform.schema.json', 'repo/other/node_modules/edgeform/edgeform.schema.json']);
    expect(await findSchemaPath(join(root, 'repo/stacks/a.yaml'))).toBe('../edgeform.schema.json');
    expect(await findSchemaPath(join(root, 'repo/other/a.yaml'))).toBe('./node_modules/edgeform/edgeform.schema.json');
  });

  it('never points outside the repository: without one inside it, the default beside the stack', async () => {
    const root = tree(['node_modules/edgeform/edgeform.schema.json', 'repo/.git/', 'repo/stacks/']);
    expect(await findSchemaPath(join(root, 'repo/stacks/a.yaml'))).toBe('./edgeform.schema.json');
    // Outside a repository the search goes up to the root.
    expect(await findSchemaPath(join(root, 'loose/a.yaml'))).toBe('../node_modules/edgeform/edgeform.schema.json');
  });
});
