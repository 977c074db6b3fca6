import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { TEST_TLS_KEY } from '../helpers/tls-key.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BUNDLE = join(ROOT, 'dist/bin/');
const TRACER = pathToFileURL(fileURLToPath(new URL('../helpers/trace-loads.mjs', import.meta.url))).href;
const dir = mkdtempSync(join(tmpdir(), 'edgeform-start-up-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Runs the built CLI (the bundle, dist/bin/) with the module tracer preloaded and returns its
 * result and every module it loaded: edgeform's own as `dist/...` paths, packages by name
 * (`undici`), node's built-ins left out. A chunk of the bundle counts as the modules its source
 * map names, so a module the bundler moved into a chunk that loads early is seen as loaded.
 */
async function loadedModules(args: string[], env: Record<string, string> = {}): Promise<{ result: CliResult; modules: Set<string> }> {
  const file = join(dir, `${[...args, ...Object.keys(env)].join('_').replace(/\W/g, '')}.txt`);
  const result = await runCli(args, { env: { ...env, NODE_OPTIONS: `--import=${TRACER}`, TRACE_LOADS_FILE: file } });
  const modules = new Set<string>();
  const add = (path: string) => {
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path);
    if (pkg) modules.add(pkg[1]!);
    else if (path.startsWith(ROOT)) modules.add(path.slice(ROOT.length));
  };
  for (const url of readFileSync(file, 'utf8').split('\n')) {
    if (!url.startsWith('file:')) continue;
    const path = fileURLToPath(url);
    if (path.startsWith(BUNDLE)) for (const source of chunkSources(path)) add(source);
    else add(path);
  }
  return { result, modules };
}

/**
 * The modules a chunk of the bundle holds, as absolute paths, from its source map. A chunk
 * with no source map holds none: the bundler's runtime helpers, or a re-export of another chunk.
 */
function chunkSources(chunk: string): string[] {
  if (!existsSync(`${chunk}.map`)) return [];
  const map = JSON.parse(readFileSync(`${chunk}.map`, 'utf8')) as { sources: string[] };
  return map.sources.map((source) => resolve(dirname(chunk), source));
}

/** What no command but those that talk to the platform (or are the emulator) may load. */
const NETWORK_AND_EMULATOR = (modules: Set<string>) =>
  [...modules].filter((m) => m === 'undici' || m.startsWith('dist/src/api/client') || m.startsWith('dist/src/emulator/') || m.endsWith('/provider.js'));

describe('start-up loads only what the command needs', () => {
  it('answers --version from the entry point alone: no yargs, no command', async () => {
    for (const flag of ['--version', '-v']) {
      const { result, modules } = await loadedModules([flag]);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
      expect([...modules].sort()).toEqual(['dist/cmd/edgeform.js', 'dist/src/version.js']);
    }
  });

  it('lists the commands for --help without loading any of them', async () => {
    const { result, modules } = await loadedModules(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('edgeform validate <path>');
    expect(result.stdout).toContain('edgeform emulator');
    expect([...modules].filter((m) => m.startsWith('dist/src/cli/') && m !== 'dist/src/cli/commands.js' && m !== 'dist/src/cli/io.js')).toEqual([]);
    for (const heavy of ['undici', 'yaml', 'zod', 'diff']) expect(modules).not.toContain(heavy);
  });

  it('validates a stack without loading the API client, undici, the providers or the emulator', async () => {
    const { result, modules } = await loadedModules(['validate', 'examples/quickstart.yaml']);
    expect(result.code).toBe(0);
    expect(modules).toContain('dist/src/cli/validate.js');
    expect(NETWORK_AND_EMULATOR(modules)).toEqual([]);
    for (const other of ['plan', 'apply', 'drift', 'import', 'schema', 'emulator']) expect(modules).not.toContain(`dist/src/cli/${other}.js`);
    // A stack is read by js-yaml (the yaml library only writes: fmt, import), and a valid one shows no code frame and no text diff.
    expect(modules).toContain('js-yaml');
    for (const lazy of ['yaml', 'diff', '@babel/code-frame']) expect(modules).not.toContain(lazy);
    // Issue 33: a stack without SSH keys, subnets or security groups loads neither the key parser
    // (sshpk and its crypto helpers, about half a megabyte) nor the IP address library; and
    // `validate PATH` with no flag runs without yargs (cmd/run-cli.ts runPlain).
    for (const unused of ['sshpk', 'tweetnacl', 'jsbn', 'ipaddr.js', 'yargs']) expect(modules).not.toContain(unused);
  });

  it('loads the SSH key parser and the IP address library when the stack has a key and a network to check, and yargs when a flag is given', async () => {
    const { result, modules } = await loadedModules(['validate', 'examples/web-service.yaml', '--format', 'json']);
    expect(result.code).toBe(0);
    expect(modules).toContain('sshpk');
    expect(modules).toContain('ipaddr.js');
    expect(modules).toContain('yargs');
  });

  it('reads anchors with js-yaml too, and loads the code frame when a diagnostic needs it (the tracer sees packages loaded on first use)', async () => {
    const file = join(dir, 'anchors.yaml');
    writeFileSync(file, 'version: 1\nresources:\n  a: &x {type: nope}\n');
    const { result, modules } = await loadedModules(['validate', file]);
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).toContain('unknown resource type "nope"');
    expect(modules).toContain('js-yaml');
    expect(modules).not.toContain('yaml');
    expect(modules).toContain('@babel/code-frame');
  });

  it('prints the schema without loading the API client, undici, the providers or the emulator', async () => {
    const { result, modules } = await loadedModules(['schema']);
    expect(result.code).toBe(0);
    expect(NETWORK_AND_EMULATOR(modules)).toEqual([]);
  });

  it("completes a stack's addresses and the kinds without loading a command's module, the API client or the providers", async () => {
    const addresses = await loadedModules(['--get-yargs-completions', 'edgeform', 'plan', 'examples/quickstart.yaml', '--target', 'cloud_in']);
    expect(addresses.result.stdout).toBe('cloud_instance.web_vm\n');
    const kinds = await loadedModules(['--get-yargs-completions', 'edgeform', 'import', 'dns_']);
    expect(kinds.result.stdout).toBe('dns_zone\ndns_rrset\n');
    for (const { modules } of [addresses, kinds]) {
      expect(modules).toContain('dist/src/cli/complete-words.js');
      expect(
        [...modules].filter((m) => m.startsWith('dist/src/cli/') && !['dist/src/cli/commands.js', 'dist/src/cli/io.js', 'dist/src/cli/complete-words.js'].includes(m)),
      ).toEqual([]);
      expect(NETWORK_AND_EMULATOR(modules)).toEqual([]);
      for (const heavy of ['yaml', 'diff']) expect(modules).not.toContain(heavy);
    }
  });

  it('lists the stacks of a fleet and merges their reports, offline, without loading the API client, undici, the providers or the emulator', async () => {
    // examples/cdn.yaml purges for ${env:RELEASE}, examples/load-balanced.yaml reads ${env:WEB_TLS_KEY}: the listing loads each stack with the environment.
    const { result, modules } = await loadedModules(['stacks', 'examples', '--format', 'json'], { RELEASE: '42', WEB_TLS_KEY: TEST_TLS_KEY });
    expect(result.code).toBe(0);
    expect(modules).toContain('dist/src/cli/stacks.js');
    expect(NETWORK_AND_EMULATOR(modules)).toEqual([]);
    const merge = await loadedModules(['report', 'merge', 'no-such-result.json']);
    expect(merge.result.code).toBe(1);
    expect(merge.modules).toContain('dist/src/cli/report.js');
    expect(NETWORK_AND_EMULATOR(merge.modules)).toEqual([]);
  });

  it('loads the PostgreSQL client for apply only with EDGEFORM_LOCK_URL set (the lock across machines)', async () => {
    const stack = join(dir, 'named.yaml');
    writeFileSync(stack, 'version: 1\nname: start-up\nresources: {}\n');
    // No API key: the run ends right after taking its locks, before any request.
    const { result, modules } = await loadedModules(['apply', stack, '--auto-approve']);
    expect(result.stderr).toContain('no API key');
    expect(modules).toContain('dist/src/cli/stack-lock.js');
    expect(modules).not.toContain('pg');
    expect(modules).not.toContain('dist/src/cli/postgres-lock.js');
    // With it (nothing listens there): loaded, and the run stops at the lock.
    const locked = await loadedModules(['apply', stack, '--auto-approve'], { EDGEFORM_API_KEY: '1$aaaaaaaaaaaa', EDGEFORM_LOCK_URL: 'postgres://u:p@127.0.0.1:1/db' });
    expect(locked.result.stderr).toContain('cannot reach the lock database');
    expect(locked.modules).toContain('pg');
    expect(locked.modules).toContain('dist/src/cli/postgres-lock.js');
  });

  it('sees what a command that reads the platform loads (the tracer is not blind)', async () => {
    const { result, modules } = await loadedModules(['plan', '--help']);
    expect(result.code).toBe(0);
    expect(modules).toContain('undici');
    expect(modules).toContain('dist/src/api/client.js');
    expect(modules).not.toContain('dist/src/emulator/index.js');
  });
});
