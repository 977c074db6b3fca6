import { applyCommand } from './apply.js';
import type { Command } from './command.js';
import { driftCommand } from './drift.js';
import { emulatorCommand } from './emulator.js';
import { planCommand } from './plan.js';
import { schemaCommand } from './schema.js';
import { validateCommand } from './validate.js';

/** Every command edgeform has, in the order `--help` lists them. */
export const commands: Command<any>[] = [validateCommand, planCommand, applyCommand, driftCommand, schemaCommand, emulatorCommand];
