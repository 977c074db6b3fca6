import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_PATH, runCli } from '../helpers/cli.js';

const run = promisify(execFile);

/**
 * The completion script as a user installs it, run by a real bash: COMP_WORDS and COMP_CWORD set
 * as bash sets them on TAB, the completion function called, COMPREPLY printed. Two install
 * shapes: edgeform on PATH, and a devDependency install (node_modules/.bin/edgeform only, run as
 * `npx edgeform`), where a symlink to this checkout's build stands in for the install.
 */
describe('edgeform completion in bash', () => {
  let scratch: string;
  let script: string;
  /** A PATH with node and the system's tools, and no edgeform. */
  const basePath = `${dirname(process.execPath)}:/usr/bin:/bin`;

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'edgeform-completion-'));
    // npm makes a bin's target executable when it installs it; the build leaves that to npm.
    chmodSync(CLI_PATH, 0o755);
    mkdirSync(join(scratch, 'on-path'));
    symlinkSync(CLI_PATH, join(scratch, 'on-path', 'edgeform'));
    mkdirSync(join(scratch, 'project', 'node_modules', '.bin'), { recursive: true });
    mkdirSync(join(scratch, 'project', 'stacks'));
    symlinkSync(CLI_PATH, join(scratch, 'project', 'node_modules', '.bin', 'edgeform'));
    writeFileSync(
      join(scratch, 'project', 'stacks', 'prod.yaml'),
      'version: 1\nresources:\n  web: { type: fastedge_app, name: web }\n  api: { type: fastedge_app, name: api }\n  zone: { type: dns_zone, name: example.com }\n',
    );
    const printed = await runCli(['completion'], { env: { SHELL: '/bin/bash' } });
    expect(printed.code).toBe(0);
    script = printed.stdout;
  });

  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  /** What the completion function leaves in COMPREPLY for the words typed (the last one being completed). */
  async function complete(words: string[], options: { cwd: string; path: string }): Promise<string[]> {
    const program = [
      script,
      `COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')})`,
      `COMP_CWORD=${words.length - 1}`,
      `COMP_LINE='${words.join(' ')}'`,
      `COMP_POINT=\${#COMP_LINE}`,
      // bash looks a command word up as typed, then (a path) by its last part.
      `spec="$(complete -p '${words[0]}' 2>/dev/null || complete -p '${words[0]!.split('/').at(-1)}')" || exit 3`,
      // The function bash would call for this command word: complete -F FUNC … NAME.
      `func="$(sed -E 's/.* -F ([^ ]+) .*/\\1/' <<< "$spec")"`,
      `"$func" '${words[0]}' '${words.at(-1)}' '${words.at(-2) ?? ''}'`,
      `printf '%s\\n' "\${COMPREPLY[@]}"`,
    ].join('\n');
    const { stdout } = await run('bash', ['--norc', '--noprofile', '-c', program], { cwd: options.cwd, env: { PATH: options.path, HOME: scratch, NO_COLOR: '1' } });
    return stdout.split('\n').filter((line) => line !== '');
  }

  it('is listed in --help', async () => {
    const help = await runCli(['--help']);
    expect(help.stdout).toMatch(/edgeform completion +Print a completion script for bash or zsh/);
  });

  it('completes commands and flags with edgeform on PATH', async () => {
    const path = `${join(scratch, 'on-path')}:${basePath}`;
    expect(await complete(['edgeform', 'pl'], { cwd: scratch, path })).toEqual(['plan']);
    expect(await complete(['edgeform', 'plan', '--det'], { cwd: scratch, path })).toEqual(['--detailed-exitcode']);
  });

  it('completes `npx edgeform` from a devDependency install, with no edgeform on PATH, in a subdirectory of the project', async () => {
    const cwd = join(scratch, 'project', 'stacks');
    expect(await complete(['npx', 'edgeform', 'pl'], { cwd, path: basePath })).toEqual(['plan']);
    expect(await complete(['npx', 'edgeform', 'apply', '--auto'], { cwd, path: basePath })).toEqual(['--auto-approve']);
    expect(await complete(['npx', 'edg'], { cwd, path: basePath })).toEqual(['edgeform']);
  });

  it('completes a path to the executable with the executable typed', async () => {
    const cwd = join(scratch, 'project');
    expect(await complete(['node_modules/.bin/edgeform', 'dr'], { cwd, path: basePath })).toEqual(['drift']);
  });

  it("completes --target with the stack's addresses and import with the kinds, as kubectl completes resources", async () => {
    const cwd = join(scratch, 'project');
    expect(await complete(['npx', 'edgeform', 'plan', 'stacks/prod.yaml', '--target', ''], { cwd, path: basePath })).toEqual([
      'fastedge_app.web',
      'fastedge_app.api',
      'dns_zone.zone',
    ]);
    expect(await complete(['npx', 'edgeform', 'apply', 'stacks/prod.yaml', '--target', 'fastedge_app.a'], { cwd, path: basePath })).toEqual(['fastedge_app.api']);
    // bash splits --target=ADDR at "=" (COMP_WORDBREAKS): the word after it is the address.
    expect(await complete(['npx', 'edgeform', 'plan', 'stacks/prod.yaml', '--target', '='], { cwd, path: basePath })).toEqual([
      'fastedge_app.web',
      'fastedge_app.api',
      'dns_zone.zone',
    ]);
    expect(await complete(['npx', 'edgeform', 'import', 'dns_'], { cwd, path: basePath })).toEqual(['dns_zone', 'dns_rrset']);
  });

  it('leaves other npx commands to filename completion', async () => {
    expect(await complete(['npx', 'prettier', 'sr'], { cwd: join(scratch, 'project'), path: basePath })).toEqual([]);
  });
});
