import { stat } from 'node:fs/promises';
import { isStackFileName, readStackFiles, type Env } from '../config/stack-files.js';

/** The flags whose value is a block's address (`--replace` where a command has it). */
const ADDRESS_FLAGS = new Set(['--target', '--replace', '--resend-sensitive']);

/** The flags of `import` that take no value: any other flag before the word being completed takes it as its value. */
const IMPORT_BOOLEAN_FLAGS = new Set(['--all', '--records-file', '--force', '--help', '--color', '--no-color']);

/**
 * The words edgeform completes itself, as kubectl completes resources, for the words typed after
 * the executable (the last one being completed): the addresses of the stack the command line
 * names after `--target`, `--replace` and `--resend-sensitive` (`--target=ADDR` too), and the
 * resource kinds after `import`. Undefined for every other word: yargs completes commands and
 * flags from the command's module. The stack is read without validating it (its files' blocks,
 * `TYPE.NAME`), so a stack being edited still completes; nothing else is loaded: no command
 * module, no schema for an address.
 */
export async function completeWords(words: readonly string[], env: Env): Promise<string[] | undefined> {
  const command = words[0];
  const current = words.at(-1) ?? '';
  const before = words.slice(1, -1);
  const previous = before.at(-1);
  if (command === undefined || words.length < 2) return undefined;
  // `--target ADDR`; bash splits `--target=ADDR` at "=" (`--target`, `=`, `ADDR`); zsh keeps it one word.
  const inline = /^(--[a-z-]+)=(.*)$/.exec(current);
  const [, inlineFlag, inlineValue = ''] = inline ?? [];
  if (inlineFlag !== undefined && ADDRESS_FLAGS.has(inlineFlag)) return matching(await stackAddresses(before, inlineFlag, env), inlineValue).map((a) => `${inlineFlag}=${a}`);
  if (current === '=' && previous !== undefined && ADDRESS_FLAGS.has(previous)) return stackAddresses(before, previous, env);
  if (previous !== undefined && ADDRESS_FLAGS.has(previous) && !current.startsWith('-')) return matching(await stackAddresses(before, previous, env), current);
  const flagBeforeEquals = before.at(-2);
  if (previous === '=' && flagBeforeEquals !== undefined && ADDRESS_FLAGS.has(flagBeforeEquals)) return matching(await stackAddresses(before, flagBeforeEquals, env), current);
  if (command === 'import' && !current.startsWith('-')) {
    if (previous !== undefined && previous.startsWith('--') && !previous.includes('=') && !IMPORT_BOOLEAN_FLAGS.has(previous)) return undefined;
    const { RESOURCE_TYPES } = await import('../kinds/registry.js');
    if (before.some((word) => (RESOURCE_TYPES as readonly string[]).includes(word))) return undefined;
    return matching(RESOURCE_TYPES, current);
  }
  return undefined;
}

function matching(words: readonly string[], prefix: string): string[] {
  return words.filter((word) => word.startsWith(prefix));
}

/**
 * The stack the words name: the first word that is not a flag and names a stack file (*.yaml,
 * *.yml) or, failing that, an existing directory (a directory stack); undefined when none does.
 */
async function stackPath(words: readonly string[]): Promise<string | undefined> {
  const candidates = words.filter((word) => !word.startsWith('-') && word !== '=');
  const file = candidates.find((word) => isStackFileName(word));
  if (file !== undefined) return file;
  for (const word of candidates) if (await isDirectory(word)) return word;
  return undefined;
}

/**
 * The addresses of the stack's blocks (TYPE.NAME) the words name, in file order: every block for
 * `--target` (checks can be targets), the resources for the other flags. None when no stack is
 * named or it cannot be read.
 */
async function stackAddresses(words: readonly string[], flag: string, env: Env): Promise<string[]> {
  const path = await stackPath(words);
  if (path === undefined) return [];
  const { files } = await readStackFiles(path, env);
  const addresses: string[] = [];
  for (const file of files) {
    for (const section of flag === '--target' ? ['resources', 'checks'] : ['resources']) {
      for (const [name, block] of file.root?.entries?.get(section)?.entries ?? []) {
        const type = block.entries?.get('type')?.value;
        if (typeof type === 'string') addresses.push(`${type}.${name}`);
      }
    }
  }
  return [...new Set(addresses)];
}

async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isDirectory(),
    () => false,
  );
}
