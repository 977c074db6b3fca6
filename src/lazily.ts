import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A package loaded when first used rather than at start-up: for packages a run often does not
 * need and that take milliseconds to load (yaml, diff, @babel/code-frame: about 30, 15 and 8
 * ms). Only for packages with a CommonJS entry; their types come from `typeof import(...)`.
 */
export function lazily<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(name) as T);
}
