import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadStack } from '../../../src/config/load-stack.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { FLEET_FILES, writeFleet } from '../../helpers/fleet.js';
import { sendJson, startLoopbackServer, type LoopbackServer } from '../../helpers/loopback-server.js';

/**
 * `edgeform stacks ROOT`: the fleet listed offline. A loopback server stands where the platform
 * would be (EDGEFORM_BASE_URL), so a request would be seen; none may be.
 */
let platform: LoopbackServer;
let env: Record<string, string>;
beforeAll(async () => {
  platform = await startLoopbackServer((_req, res) => sendJson(res, 500, {}));
  env = { EDGEFORM_BASE_URL: platform.url, EDGEFORM_API_KEY: '1$abcdefabcdefabcdef' };
});
afterAll(() => platform.close());

const stacks = async (args: string[], options: { cwd?: string } = {}) => runCliInProcess(['stacks', ...args], { env, ...options });

interface ListedJson {
  path: string;
  key: string;
  kind: string;
  name: string | null;
  valid: boolean;
  digest: string | null;
  base_url: string | null;
  places: unknown[];
  files: string[];
  diagnostics: Array<{ code: string; summary: string; range: { filename: string } | null }>;
}

describe('edgeform stacks: the fleet under a root', () => {
  it('lists every stack with its name, digest, platform, places and files, and the invalid one with its errors (exit 1), sending nothing', async () => {
    const root = writeFleet();
    const result = await stacks([root, '--format', 'json']);
    expect(result.code).toBe(1);
    const doc = JSON.parse(result.stdout) as { stacks: ListedJson[]; skipped: unknown[]; summary: unknown; root: string; shard: null; changed_since: null };
    expect(doc).toMatchObject({ format_version: '1.0', root, shard: null, changed_since: null, summary: { stacks: 5, valid: 4, invalid: 1, skipped: 2 } });
    expect(doc.stacks.map((s) => [s.key, s.kind, s.name, s.valid])).toEqual([
      ['broken.yaml', 'file', null, false],
      ['dns/zone.yaml', 'file', null, true],
      ['media/subtitles.yaml', 'file', null, true],
      ['multi', 'directory', 'multi', true],
      ['prod/web.yaml', 'file', 'web-prod', true],
    ]);
    const web = doc.stacks.find((s) => s.key === 'prod/web.yaml')!;
    expect(web).toMatchObject({
      path: join(root, 'prod/web.yaml'),
      base_url: platform.url,
      places: [
        { service: 'cloud', project_id: 1, region_id: 76 },
        { service: 'cloud', project_id: 1 },
      ],
      files: [join(root, 'prod/keys/deploy.pub'), join(root, 'prod/web.yaml')],
      diagnostics: [],
    });
    expect(web.digest).toMatch(/^[0-9a-f]{64}$/);
    // The digest a plan of the stack records.
    expect(web.digest).toBe((await loadStack(join(root, 'prod/web.yaml'), env)).stack!.digest);
    const broken = doc.stacks.find((s) => s.key === 'broken.yaml')!;
    expect(broken).toMatchObject({ digest: null, base_url: null, places: [], files: [join(root, 'broken.yaml')] });
    expect(broken.diagnostics).toEqual([expect.objectContaining({ code: 'unknown-field', range: expect.objectContaining({ filename: join(root, 'broken.yaml') }) })]);
    expect(platform.requests).toEqual([]);
  });

  it('prints text for a person: each stack, what it reads, the invalid one with its errors, and what was skipped', async () => {
    const root = writeFleet();
    const result = await stacks([root]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`✓ ${join(root, 'prod/web.yaml')} (stack web-prod)\n`);
    expect(result.stdout).toContain('    reads   cloud project 1 region 76; cloud project 1\n');
    expect(result.stdout).toContain(`    files   ${join(root, 'media/fre.vtt')}, ${join(root, 'media/subtitles.yaml')}\n`);
    expect(result.stdout).toContain(`✓ ${join(root, 'multi')} (directory stack multi)\n`);
    expect(result.stdout).toContain(`✗ ${join(root, 'broken.yaml')} (stack): invalid, 1 error\n    ${join(root, 'broken.yaml')}:3:`);
    expect(result.stdout).toContain(`5 stacks under ${root}, 1 invalid; 2 YAML files skipped (not stacks): ${join(root, 'compose.yaml')}, ${join(root, 'notes.yml')}.`);
  });

  it('prints what a GitHub Actions matrix fromJSON takes, on one line, and exits 0 when every stack is valid', async () => {
    const root = writeFleet();
    unlinkSync(join(root, 'broken.yaml'));
    const result = await stacks(['.', '--format', 'github-matrix'], { cwd: root });
    expect(result.code).toBe(0);
    expect(result.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(JSON.parse(result.stdout)).toEqual({
      include: [
        { stack: 'dns/zone.yaml', name: 'dns/zone.yaml' },
        { stack: 'media/subtitles.yaml', name: 'media/subtitles.yaml' },
        { stack: 'multi', name: 'multi' },
        { stack: 'prod/web.yaml', name: 'web-prod' },
      ],
    });
  });

  it('--shard I/N: the N shards together list every stack exactly once, the invalid one too, and no skipped file', async () => {
    const root = writeFleet(
      Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`more/s${i}.yaml`, FLEET_FILES['multi/network.yaml']!.replace('name: multi', `name: s${i}`)])),
    );
    const all = JSON.parse((await stacks([root, '--format', 'json'])).stdout) as { stacks: ListedJson[] };
    const seen: string[] = [];
    for (let i = 1; i <= 4; i++) {
      const shard = JSON.parse((await stacks([root, '--format', 'json', '--shard', `${i}/4`])).stdout) as { shard: string; stacks: ListedJson[]; skipped: unknown[] };
      expect(shard.shard).toBe(`${i}/4`);
      expect(shard.skipped).toEqual([]);
      seen.push(...shard.stacks.map((s) => s.path));
    }
    expect(seen.sort()).toEqual(all.stacks.map((s) => s.path).sort());
    expect(all.stacks).toHaveLength(17);
  });

  it('refuses a malformed --shard, a ROOT that is no directory, and lists nothing', async () => {
    const root = writeFleet();
    for (const [args, message] of [
      [[root, '--shard', '0/4'], '--shard takes I/N with 1 ≤ I ≤ N ≤ 1000 (e.g. 2/8), not "0/4"'],
      [[join(root, 'prod/web.yaml')], `edgeform stacks searches a directory: ${join(root, 'prod/web.yaml')} is not one`],
      [[join(root, 'nope')], `edgeform stacks searches a directory: ${join(root, 'nope')} does not exist`],
    ] as const) {
      const result = await stacks([...args]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(message);
      expect(result.stdout).toBe('');
    }
  });

  it('lists what it cannot read as skipped, never reading a FIFO (which would never end) or following a dangling link', async () => {
    const root = writeFleet();
    execFileSync('mkfifo', [join(root, 'pipe.yaml')]);
    symlinkSync(join(root, 'gone.yaml'), join(root, 'dangling.yaml'));
    const result = await stacks([root, '--format', 'json']);
    expect(JSON.parse(result.stdout).skipped).toEqual([
      { path: join(root, 'compose.yaml'), reason: `its top level has version: "3", not an edgeform stack's version: 1` },
      { path: join(root, 'dangling.yaml'), reason: 'it is a symbolic link to nothing' },
      { path: join(root, 'notes.yml'), reason: 'its top level has no version: 1 (and it is not part of a directory stack)' },
      { path: join(root, 'pipe.yaml'), reason: 'it is not a regular file' },
    ]);
  });

  it('completes its flags and its formats', async () => {
    const flags = await runCliInProcess(['--get-yargs-completions', 'edgeform', 'stacks', '.', '--']);
    expect(flags.stdout.split('\n')).toEqual(expect.arrayContaining(['--format', '--changed-since', '--shard']));
    const formats = await runCliInProcess(['--get-yargs-completions', 'edgeform', 'stacks', '.', '--format', '']);
    expect(formats.stdout.split('\n')).toEqual(expect.arrayContaining(['text', 'json', 'github-matrix']));
  });
});

describe('edgeform stacks --changed-since REF', () => {
  let repo: string;
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: repo,
      encoding: 'utf8',
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' },
    });
  const changed = async (ref = 'main') => {
    const result = await stacks(['stacks', '--changed-since', ref, '--format', 'json'], { cwd: repo });
    return { result, keys: (JSON.parse(result.stdout) as { stacks: ListedJson[] }).stacks.map((s) => s.key) };
  };

  beforeAll(() => {
    repo = mkdtempSync(join(tmpdir(), 'edgeform-git-'));
    const root = writeFleet({ 'multi/storage.yaml': 'resources:\n  ip2: { type: cloud_floating_ip }\n' });
    execFileSync('cp', ['-r', root, join(repo, 'stacks')]);
    rmSync(join(repo, 'stacks', 'broken.yaml'));
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('commit', '-q', '-m', 'fleet');
    git('checkout', '-q', '-b', 'change');
  });
  afterAll(() => rmSync(repo, { recursive: true, force: true }));

  it('lists nothing when nothing changed since the ref', async () => {
    const { result, keys } = await changed();
    expect(result.code).toBe(0);
    expect(keys).toEqual([]);
  });

  it('keeps the stacks whose files or read files changed (committed, uncommitted or new), and a directory stack that lost a file (or became a file stack)', async () => {
    writeFileSync(join(repo, 'stacks/media/fre.vtt'), 'WEBVTT\n\n1\n00:00:01.000 --> 00:00:04.000\nSalut\n');
    git('commit', '-q', '-am', 'subtitles');
    writeFileSync(join(repo, 'stacks/dns/example.com.zone'), '$TTL 300\nwww A 192.0.2.2\n');
    writeFileSync(join(repo, 'stacks/new.yaml'), 'version: 1\nresources: {}\n');
    expect((await changed()).keys).toEqual(['dns/zone.yaml', 'media/subtitles.yaml', 'new.yaml']);
    git('add', '.');
    git('commit', '-q', '-m', 'more');
    git('rm', '-q', 'stacks/multi/storage.yaml');
    expect((await changed()).keys).toEqual(['dns/zone.yaml', 'media/subtitles.yaml', 'multi', 'new.yaml']);
    // Since the last commit, only the directory stack changed.
    expect((await changed('HEAD')).keys).toEqual(['multi']);
    // Without its last fragment, the directory stack is its one file stating version: 1, which changed though the file did not.
    git('rm', '-q', 'stacks/multi/compute.yaml');
    expect((await changed('HEAD')).keys).toEqual(['multi/network.yaml']);
    // Another stack file removed from a directory of file stacks leaves the others as they were.
    git('commit', '-q', '-m', 'multi');
    git('rm', '-q', 'stacks/new.yaml');
    git('commit', '-q', '-m', 'removed');
    expect((await changed('HEAD~1')).keys).toEqual([]);
    git('checkout', '-q', '--', '.');
    git('reset', '-q', '--hard');
  });

  it('always keeps an invalid stack: what it reads is not known', async () => {
    writeFileSync(join(repo, 'stacks/invalid.yaml'), 'version: 1\nbogus: 1\n');
    git('add', '.');
    git('commit', '-q', '-m', 'invalid');
    const { result, keys } = await changed('HEAD');
    expect(result.code).toBe(1);
    expect(keys).toEqual(['invalid.yaml']);
    git('reset', '-q', '--hard', 'HEAD~1');
  });

  it('refuses a ref git does not know, and a root outside any git repository, with a clear error', async () => {
    const unknown = await stacks(['stacks', '--changed-since', 'no-such-branch'], { cwd: repo });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('--changed-since: git knows no commit "no-such-branch"');
    const outside = writeFleet();
    const noRepo = await runCliInProcess(['stacks', outside, '--changed-since', 'main'], { env: { ...env, GIT_CEILING_DIRECTORIES: tmpdir() } });
    expect(noRepo.code).toBe(1);
    expect(noRepo.stderr).toContain(`--changed-since needs a git repository, and ${outside} is not inside one`);
    const option = await stacks(['stacks', '--changed-since=--output=x'], { cwd: repo });
    expect(option.code).toBe(1);
    expect(option.stderr).toContain('--changed-since takes a git ref');
  });
});
