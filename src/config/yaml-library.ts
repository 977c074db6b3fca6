import { lazily } from '../lazily.js';

/**
 * The yaml library, loaded when first needed: a stack in plain YAML is read without it
 * (plain-yaml.ts). It reads what plain-yaml.ts leaves to it, finds the ends of block
 * collections a diagnostic points at, and writes stacks (fmt, import).
 */
export const yamlLibrary = lazily<typeof import('yaml')>('yaml');
