import type { Command } from './command.js';

/** Every command edgeform has, in the order `--help` lists them. */
export const commands: Command<any>[] = [];
