import { stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { DEFAULT_SCHEMA_PATH } from '../config/write-stack.js';

/** Where an installed edgeform's schema is, below a directory that has it in its node_modules. */
const INSTALLED = join('node_modules', 'edgeform', 'edgeform.schema.json');

/**
 * The path a stack written to `stackFile` points its schema line at, relative to the stack's
 * directory (as yaml-language-server reads it): the edgeform installed for that directory, found
 * as Node finds a package, in `node_modules/edgeform/` of the stack's directory or the nearest
 * directory above it that has one (`../node_modules/edgeform/edgeform.schema.json` for a stack in
 * `stacks/` of a repository with edgeform as a devDependency), else an `edgeform.schema.json`
 * written beside the stack or above it (`edgeform schema > edgeform.schema.json`), else
 * DEFAULT_SCHEMA_PATH. The search stops at the repository's root (a directory holding `.git`),
 * so a stack never points outside its repository; outside a repository, at the file system's root.
 */
export async function findSchemaPath(stackFile: string): Promise<string> {
  const from = dirname(resolve(stackFile));
  for (let dir = from; ; dir = dirname(dir)) {
    for (const candidate of [join(dir, INSTALLED), join(dir, 'edgeform.schema.json')]) {
      if (await isFile(candidate)) return asRelative(relative(from, candidate));
    }
    if (dirname(dir) === dir || (await exists(join(dir, '.git')))) return DEFAULT_SCHEMA_PATH;
  }
}

/** A relative path as the schema line writes it: forward slashes, `./` before a path that does not climb. */
function asRelative(path: string): string {
  const posix = path.split(sep).join('/');
  return posix.startsWith('../') ? posix : `./${posix}`;
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isFile(),
    () => false,
  );
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
