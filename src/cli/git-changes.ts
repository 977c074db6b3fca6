import { execFile } from 'node:child_process';
import { realpath } from 'node:fs/promises';
import { access } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { classifyYaml } from '../config/discover-stacks.js';
import { isStackFileName } from '../config/stack-files.js';
import { EdgeformError, UsageError, must } from '../errors.js';

/** Output of one git command, or why it failed. */
type GitResult = { ok: true; stdout: string } | { ok: false; missing: boolean; stderr: string };

function git(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<GitResult> {
  return new Promise((done) => {
    execFile('git', args, { cwd, env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (!error) return done({ ok: true, stdout });
      const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
      done({
        ok: false,
        missing,
        stderr: (stderr || error.message)
          .trim()
          .replace(/\n[\s\S]*/, '')
          .slice(0, 300),
      });
    });
  });
}

/** What changed since a git ref, as `edgeform stacks --changed-since` needs it. */
export interface ChangedFiles {
  /** Every path changed, added or removed (absolute, under the repository's real path). */
  paths: Set<string>;
  /**
   * The directories from which a YAML file that was part of a stack (it stated `version: 1`, or
   * was a directory stack's fragment) was removed, by what it was: the stacks left in such a
   * directory changed although none of their files did.
   */
  removedStackFiles: Map<string, Set<'stack' | 'fragment'>>;
}

/**
 * The files (absolute real paths) changed since the git ref `ref` in the repository holding
 * `dir`: every path `git diff` shows between the ref's merge base with HEAD (the ref itself in a
 * shallow clone without it) and the working tree, renames as their old and new paths, plus
 * files git does not track and does not ignore. So a pull request's job given its base branch
 * sees what the pull request changed, and a working copy its uncommitted edits too. Throws a
 * clear error outside a git repository, for a ref git does not know, or without git.
 */
export async function changedFilesSince(ref: string, dir: string, env: NodeJS.ProcessEnv): Promise<ChangedFiles> {
  if (ref === '' || ref.startsWith('-')) throw new UsageError(`--changed-since takes a git ref (a branch, tag or commit), not "${ref}"`);
  const top = await git(['rev-parse', '--show-toplevel'], dir, env);
  if (!top.ok) {
    if (top.missing) throw new EdgeformError('EDGEFORM_GIT', '--changed-since needs git, which is not installed (or not on PATH)');
    throw new EdgeformError('EDGEFORM_GIT', `--changed-since needs a git repository, and ${dir} is not inside one (git: ${top.stderr})`);
  }
  const root = top.stdout.trim();
  const commit = await git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], root, env);
  if (!commit.ok || commit.stdout.trim() === '') {
    throw new EdgeformError(
      'EDGEFORM_GIT',
      `--changed-since: git knows no commit "${ref}" in ${root}; name a branch, tag or commit it has (in CI, fetch it: a shallow clone has only the commit it checked out)`,
    );
  }
  const sha = commit.stdout.trim();
  const base = await git(['merge-base', sha, 'HEAD'], root, env);
  const from = base.ok ? base.stdout.trim() : sha;
  const diff = await git(['diff', '--name-only', '--no-renames', '-z', from, '--'], root, env);
  if (!diff.ok) throw new EdgeformError('EDGEFORM_GIT', `--changed-since: git diff against ${ref} failed: ${diff.stderr}`);
  const untracked = await git(['ls-files', '--others', '--exclude-standard', '-z'], root, env);
  if (!untracked.ok) throw new EdgeformError('EDGEFORM_GIT', `--changed-since: git ls-files failed: ${untracked.stderr}`);
  const realRoot = await realpath(root);
  const paths = new Set<string>();
  const removedStackFiles = new Map<string, Set<'stack' | 'fragment'>>();
  for (const path of `${diff.stdout}${untracked.stdout}`.split('\0')) {
    if (path === '') continue;
    const absolute = join(realRoot, path);
    paths.add(absolute);
    if (
      !isStackFileName(basename(path)) ||
      (await access(absolute).then(
        () => true,
        () => false,
      ))
    )
      continue;
    // Removed: what it was at the ref's merge base.
    const before = await git(['show', `${from}:${path}`], root, env);
    const kind = before.ok ? classifyYaml(before.stdout).kind : 'other';
    if (kind === 'other') continue;
    const kinds = removedStackFiles.get(dirname(absolute)) ?? new Set();
    removedStackFiles.set(dirname(absolute), kinds.add(kind));
  }
  return { paths, removedStackFiles };
}

/** A path as changedFilesSince names it: absolute, through every symbolic link (the path itself when it does not exist). */
export async function realFilePath(path: string): Promise<string> {
  return realpath(path).catch(() => resolve(path));
}
