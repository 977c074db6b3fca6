import { defineConfig } from 'rolldown';

/**
 * The edgeform executable as shipped: dist/bin/, bundled from the compiled dist/cmd/edgeform.js
 * with its dependencies. Loading about 200 modules one by one (zod alone is 95, 64 of them
 * locales no command uses) cost every command about 0.15 s of start-up; the bundle loads a
 * few chunks, and the dynamic imports of the source (a command's module, the emulator) stay
 * chunks of their own, loaded only when used. The packages edgeform loads on first use
 * (src/lazily.ts) stay outside, loaded from node_modules as before.
 */
export default defineConfig({
  input: 'dist/cmd/edgeform.js',
  platform: 'node',
  external: ['yaml', 'diff', '@babel/code-frame'],
  output: { dir: 'dist/bin', format: 'esm', sourcemap: true, cleanDir: true },
});
