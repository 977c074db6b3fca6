import { execFileSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'rolldown';

/**
 * The commit the checkout at `dir` (this file's directory) is at, for `edgeform version`;
 * undefined outside a git checkout of edgeform itself (a release tarball; a directory inside
 * another repository must not take that repository's commit) or without git.
 */
export function checkoutCommit(dir: string = fileURLToPath(new URL('.', import.meta.url))): string | undefined {
  const root = realpathSync(dir);
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    if (realpathSync(git('rev-parse', '--show-toplevel')) !== root) return undefined;
    const sha = git('rev-parse', 'HEAD');
    return /^[0-9a-f]{40}$/.test(sha) ? sha : undefined;
  } catch {
    return undefined;
  }
}

const commit = checkoutCommit();

/**
 * The edgeform executable as shipped: dist/bin/, bundled from the compiled dist/cmd/edgeform.js
 * with its dependencies. Loading about 200 modules one by one (zod alone is 95, 64 of them
 * locales no command uses) cost every command about 0.15 s of start-up; the bundle loads a
 * few chunks, and the dynamic imports of the source (a command's module, the emulator) stay
 * chunks of their own, loaded only when used. The packages edgeform loads on first use
 * (src/lazily.ts: yaml, diff, @babel/code-frame, and pg for the lock across machines) stay
 * outside, loaded from node_modules as before. The checkout's commit is
 * built in, for `edgeform version`.
 */
export default defineConfig({
  input: 'dist/cmd/edgeform.js',
  platform: 'node',
  external: ['yaml', 'diff', '@babel/code-frame', 'pg', 'sshpk', 'ipaddr.js'],
  // src/version.ts reads it as BUILD_COMMIT.
  transform: commit === undefined ? {} : { define: { __EDGEFORM_COMMIT__: JSON.stringify(commit) } },
  output: { dir: 'dist/bin', format: 'esm', sourcemap: true, cleanDir: true },
});
