import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emulatorEnv, writesSeen } from '../../helpers/apply.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { startTestEmulator, type TestEmulator, closeAfterEach } from '../../helpers/emulator.js';
import { startLoopbackServer } from '../../helpers/loopback-server.js';
import { requestValidator } from '../../helpers/openapi.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

/** Distinctive values, so that any trace of them in any output is found. */
const KEY_ID = 'AKIAZZDISTINCTIVE77';
const SECRET = 'Qx9+distinctive/S3cretValue+0088ZZ';
const ROTATED = 'Rt4+rotated/S3cretValue+0099YYyy';

const STACK = `version: 1
resources:
  assets:
    type: cdn_origin_group
    name: assets-origins
    origins:
      - source: origin.example.com
      - s3:
          type: amazon
          bucket_name: assets-bucket
          region: eu-west-1
          access_key_id: \${env:S3_KEY_ID}
          secret_access_key: \${env:S3_SECRET}
        backup: true
`;

/** The S3 source of the group named `name`, as the emulator stores it (keys as sent). */
function storedS3(emu: TestEmulator, name: string): Record<string, unknown> | null | undefined {
  const group = [...emu.state.cdnOriginGroups.values()].find((g) => g.name === name);
  return group?.sources.find((s) => s.origin_type === 's3')?.config;
}

function expectNoSecret(...texts: string[]): void {
  for (const text of texts) {
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(ROTATED);
    expect(text).not.toContain(KEY_ID);
  }
}

describe('cdn_origin_group S3 origins: keys only from the environment, never printed', () => {
  let emu: TestEmulator | undefined;
  closeAfterEach(() => [emu]);

  it('refuses at validate, where it stands, a sensitive variable read again by a plain field, and sends nothing', async () => {
    emu = await startTestEmulator({ taskDurationMs: 0 });
    const env = { ...emulatorEnv(emu), S3_KEY_ID: KEY_ID, S3_SECRET: SECRET, COPY: `x-${SECRET}` };
    // The secret's variable, read again into an origin group name of another block (not a sensitive field),
    // and its value brought in by another variable: either would reach the platform in clear.
    const dir = writeStackFiles({
      'stack.yaml': `${STACK}  copy:\n    type: cdn_origin_group\n    name: copy-\${env:S3_SECRET}\n    origins: [{ source: copy.example.com }]\n  other:\n    type: cdn_origin_group\n    name: \${env:COPY}\n    origins: [{ source: other.example.com }]\n`,
    });
    for (const command of ['validate', 'plan', 'apply']) {
      const run = await runCliInProcess([command, 'stack.yaml', ...(command === 'apply' ? ['--auto-approve'] : [])], { env, cwd: dir });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('stack.yaml:17:11: error: ${env:S3_SECRET} is a sensitive value (a sensitive field reads it at');
      expect(run.stderr).toContain('and this field is not sensitive: it would be sent in clear');
      expect(run.stderr).toContain('stack.yaml:21:11: error: the value of ${env:S3_SECRET} is a sensitive value');
      expectNoSecret(run.stdout, run.stderr);
    }
    expect(emu.requests.filter((r) => r.path.startsWith('/cdn'))).toEqual([]);
  });

  it('takes one sensitive variable in two sensitive fields', async () => {
    const env = { S3_KEY_ID: KEY_ID, S3_SECRET: SECRET };
    const twice = STACK + STACK.split('resources:\n')[1]!.replace('assets:', 'mirror:').replace('assets-origins', 'mirror-origins');
    const dir = writeStackFiles({ 'stack.yaml': twice });
    const run = await runCliInProcess(['validate', 'stack.yaml'], { env, cwd: dir });
    expect(run.code, run.stderr).toBe(0);
  });

  it('plans, saves, shows, applies (trace log), drifts and plans again without a trace of the keys, while the platform receives them', async () => {
    emu = await startTestEmulator({ taskDurationMs: 0 });
    const env = { ...emulatorEnv(emu), S3_KEY_ID: KEY_ID, S3_SECRET: SECRET };
    const dir = writeStackFiles({ 'stack.yaml': STACK });
    const stack = 'stack.yaml';
    const planFile = 'plan.json';
    const outputs: string[] = [];
    const run = async (args: string[], runEnv: Record<string, string | undefined> = env) => {
      const result = await runCliInProcess(args, { env: runEnv, cwd: dir });
      outputs.push(result.stdout, result.stderr);
      return result;
    };

    const text = await run(['plan', stack]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('+ cdn_origin_group.assets');
    expect(text.stdout).toContain('assets-bucket');
    expect(text.stdout).toContain('(sensitive)');
    expect((await run(['plan', stack, '--format', 'json'])).code).toBe(0);
    expect((await run(['plan', stack, '--format', 'markdown'])).code).toBe(0);
    const saved = await run(['plan', stack, '--out', planFile]);
    expect(saved.code, saved.stderr).toBe(0);
    const fileText = readFileSync(join(dir, planFile), 'utf8');
    outputs.push(fileText);
    // The plan file keeps the references, which apply reads from the environment.
    const change = (JSON.parse(fileText) as { resource_changes: Array<{ sensitive?: unknown; payload?: unknown }> }).resource_changes[0]!;
    expect(change.sensitive).toEqual([
      { path: ['body', 'sources', 1, 'config', 's3_access_key_id'], env: 'S3_KEY_ID' },
      { path: ['body', 'sources', 1, 'config', 's3_secret_access_key'], env: 'S3_SECRET' },
    ]);
    expect(JSON.stringify(change.payload)).toContain('${env:S3_SECRET}');
    expect((await run(['show', planFile])).code).toBe(0);
    expect((await run(['show', planFile, '--format', 'json'])).code).toBe(0);

    // The saved plan is applied with another value in the environment: apply reads it then.
    const applied = await run(['apply', planFile, '--auto-approve'], { ...env, S3_SECRET: ROTATED, EDGEFORM_LOG: 'trace' });
    expect(applied.code, applied.stderr + applied.stdout).toBe(0);
    expect(writesSeen(emu)).toEqual(['POST /cdn/origin_groups']);
    expect(applied.stderr, 'the trace log shows the request').toMatch(/POST \/cdn\/origin_groups/);
    expect(storedS3(emu, 'assets-origins')).toMatchObject({ s3_type: 'amazon', s3_bucket_name: 'assets-bucket', s3_access_key_id: KEY_ID, s3_secret_access_key: ROTATED });

    const again = await run(['plan', stack, '--detailed-exitcode'], { ...env, S3_SECRET: ROTATED });
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain('No changes');
    const drift = await run(['drift', stack], { ...env, S3_SECRET: ROTATED });
    expect(drift.code, drift.stdout + drift.stderr).toBe(0);
    expectNoSecret(...outputs);
  });

  it('an origin change sends the whole list with both keys again; the keys alone are never compared', async () => {
    emu = await startTestEmulator({ taskDurationMs: 0 });
    const env = { ...emulatorEnv(emu), S3_KEY_ID: KEY_ID, S3_SECRET: SECRET };
    const dir = writeStackFiles({ 'stack.yaml': STACK });
    const stack = join(dir, 'stack.yaml');
    expect((await runCliInProcess(['apply', stack, '--auto-approve'], { env })).code).toBe(0);
    const id = [...emu.state.cdnOriginGroups.values()].find((g) => g.name === 'assets-origins')!.id;

    // Another secret in the environment cannot be seen: no change.
    const unseen = await runCliInProcess(['plan', stack, '--detailed-exitcode'], { env: { ...env, S3_SECRET: ROTATED } });
    expect(unseen.code, unseen.stdout).toBe(0);

    const writes = writesSeen(emu).length;
    writeFileSync(stack, STACK.replace('backup: true', 'backup: false'));
    const changed = await runCliInProcess(['apply', stack, '--auto-approve'], { env: { ...env, S3_SECRET: ROTATED } });
    expect(changed.code, changed.stderr + changed.stdout).toBe(0);
    expect(writesSeen(emu).slice(writes)).toEqual([`PATCH /cdn/origin_groups/${id}`]);
    expect(storedS3(emu, 'assets-origins')).toMatchObject({ s3_secret_access_key: ROTATED });
    expectNoSecret(unseen.stdout, unseen.stderr, changed.stdout, changed.stderr);
  });

  it('a literal key, a key inside other text and an unset variable are located errors that show no value, and nothing is sent', async () => {
    emu = await startTestEmulator({ taskDurationMs: 0 });
    const env = { ...emulatorEnv(emu), S3_KEY_ID: KEY_ID, S3_SECRET: SECRET };
    const literal = STACK.replace('${env:S3_SECRET}', SECRET).replace('${env:S3_KEY_ID}', `"x-\${env:S3_KEY_ID}"`);
    const dir = writeStackFiles({ 'literal.yaml': literal, 'stack.yaml': STACK });

    const refused = await runCliInProcess(['plan', join(dir, 'literal.yaml')], { env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('literal.yaml:13:30: error: origins[1].s3.secret_access_key is sensitive: write it as exactly one ${env:NAME} reference');
    expect(refused.stderr).toContain('literal.yaml:12:26: error: origins[1].s3.access_key_id is sensitive');
    expect(refused.stderr).not.toContain('looks like a credential');
    expectNoSecret(refused.stdout, refused.stderr);

    const { S3_SECRET: _unset, ...withoutSecret } = env;
    const unset = await runCliInProcess(['plan', join(dir, 'stack.yaml')], { env: withoutSecret });
    expect(unset.code).toBe(1);
    expect(unset.stderr).toContain('stack.yaml:13:30: error: environment variable S3_SECRET is not set');

    expect((await runCliInProcess(['plan', 'stack.yaml', '--out', 'plan.json'], { env, cwd: dir })).code).toBe(0);
    const before = emu.requests.length;
    const unsetAtApply = await runCliInProcess(['apply', 'plan.json', '--auto-approve'], { env: withoutSecret, cwd: dir });
    expect(unsetAtApply.code).toBe(1);
    expect(unsetAtApply.stderr).toContain('environment variable S3_SECRET is not set');
    expect(emu.requests.length).toBe(before);
    expect(writesSeen(emu)).toEqual([]);

    // A plan file edited to send another variable's value is not what the stack plans: refused, nothing written.
    const file = join(dir, 'plan.json');
    writeFileSync(file, readFileSync(file, 'utf8').replaceAll('S3_SECRET', 'HOME'));
    const tampered = await runCliInProcess(['apply', 'plan.json', '--auto-approve'], { env, cwd: dir });
    expect(tampered.code).toBe(1);
    expect(tampered.stderr).toContain('sensitive');
    expect(writesSeen(emu)).toEqual([]);
  });

  it('a key from the environment outside the vendor restrictions is a located error naming the variable, not the value', async () => {
    emu = await startTestEmulator({ taskDurationMs: 0 });
    const dir = writeStackFiles({ 'stack.yaml': STACK });
    const bad = 'bad secret with spaces!';
    const result = await runCliInProcess(['validate', join(dir, 'stack.yaml')], { env: { ...emulatorEnv(emu), S3_KEY_ID: KEY_ID, S3_SECRET: bad } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('stack.yaml:13:30: error: origins[1].s3.secret_access_key: the value of ${env:S3_SECRET} is not valid: an S3 secret access key holds only');
    expect(result.stderr).not.toContain(bad);
  });

  it('a platform error that echoes the sent keys (JSON-escaped too) is shown redacted', async () => {
    // A platform that lists no groups and refuses the create, quoting the body it was sent.
    const server = await startLoopbackServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.method === 'GET') return void res.end('[]');
      res.statusCode = 400;
      res.end(JSON.stringify({ errors: { sources: [`invalid body: ${req.body}`] } }));
    });
    try {
      const dir = writeStackFiles({ 'stack.yaml': STACK });
      const env = { EDGEFORM_BASE_URL: server.url, EDGEFORM_API_KEY: '29841$c767b250c767b250c767b250c767b250', S3_KEY_ID: KEY_ID, S3_SECRET: SECRET, EDGEFORM_LOG: 'trace' };
      const result = await runCliInProcess(['apply', 'stack.yaml', '--auto-approve'], { env, cwd: dir });
      expect(result.code).toBe(1);
      const post = server.requests.find((r) => r.method === 'POST')!;
      expect(JSON.parse(post.body).sources[1].config.s3_secret_access_key, 'the platform was sent the key').toBe(SECRET);
      // The create body is one the vendor's CreateOriginGroup accepts (its current None Auth form, with an S3 source).
      const validate = requestValidator('cdn_api.yaml', 'POST', '/cdn/origin_groups');
      expect(validate(JSON.parse(post.body)), JSON.stringify(validate.errors)).toBe(true);
      expect(result.stdout + result.stderr).toContain('[REDACTED]');
      expectNoSecret(result.stdout, result.stderr);
      expect(result.stdout + result.stderr).not.toContain(JSON.stringify(SECRET).slice(1, -1));
    } finally {
      await server.close();
    }
  });

  it('--resend-sensitive sends the origins of an unchanged group with the keys the environment holds now, also from a plan file', async () => {
    emu = await startTestEmulator({ taskDurationMs: 0 });
    const env = { ...emulatorEnv(emu), S3_KEY_ID: KEY_ID, S3_SECRET: SECRET };
    const dir = writeStackFiles({ 'stack.yaml': STACK });
    expect((await runCliInProcess(['apply', 'stack.yaml', '--auto-approve'], { env, cwd: dir })).code).toBe(0);
    const id = [...emu.state.cdnOriginGroups.values()].find((g) => g.name === 'assets-origins')!.id;
    const rotated = { ...env, S3_SECRET: ROTATED };

    const plan = await runCliInProcess(['plan', 'stack.yaml', '--resend-sensitive', 'cdn_origin_group.assets', '--out', 'plan.json'], { env: rotated, cwd: dir });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('~ cdn_origin_group.assets');
    expect(plan.stdout).toContain('origins are sent again with the S3 keys the environment holds now (--resend-sensitive)');
    expect(readFileSync(join(dir, 'plan.json'), 'utf8')).toContain('"resend_sensitive": true');
    const writes = writesSeen(emu).length;
    const applied = await runCliInProcess(['apply', 'plan.json', '--auto-approve'], { env: rotated, cwd: dir });
    expect(applied.code, applied.stderr + applied.stdout).toBe(0);
    expect(applied.stdout).toContain('1 changed');
    expect(writesSeen(emu).slice(writes)).toEqual([`PATCH /cdn/origin_groups/${id}`]);
    expect(storedS3(emu, 'assets-origins')).toMatchObject({ s3_secret_access_key: ROTATED });
    expectNoSecret(plan.stdout, plan.stderr, applied.stdout, applied.stderr, readFileSync(join(dir, 'plan.json'), 'utf8'));

    // Straight from the stack too; a resource without sensitive values, or none at all, is an error.
    const again = await runCliInProcess(['apply', 'stack.yaml', '--auto-approve', '--resend-sensitive', 'cdn_origin_group.assets'], { env, cwd: dir });
    expect(again.code, again.stderr + again.stdout).toBe(0);
    expect(storedS3(emu, 'assets-origins')).toMatchObject({ s3_secret_access_key: SECRET });
    const unknown = await runCliInProcess(['plan', 'stack.yaml', '--resend-sensitive', 'cdn_origin_group.nothing'], { env, cwd: dir });
    expect(unknown.code).toBe(1);
    expect(unknown.stdout + unknown.stderr).toContain('--resend-sensitive cdn_origin_group.nothing: the stack declares no such resource');
    writeFileSync(join(dir, 'stack.yaml'), STACK.replace(/      - s3:[\s\S]*$/, ''));
    const none = await runCliInProcess(['plan', 'stack.yaml', '--resend-sensitive', 'cdn_origin_group.assets'], { env, cwd: dir });
    expect(none.code).toBe(1);
    expect(none.stdout + none.stderr).toContain('cdn_origin_group.assets: --resend-sensitive names it, but it sends no sensitive values');
  });

  it('import leaves out a group with an S3 origin (its keys cannot be read), naming why, and imports the rest', async () => {
    const config = { s3_type: 'amazon', s3_bucket_name: 'b', s3_region: 'eu-west-1', s3_access_key_id: KEY_ID, s3_secret_access_key: SECRET };
    emu = await startTestEmulator({
      fixtures: {
        cdn_origin_groups: [
          { id: 1, name: 'hosts', sources: [{ source: 'origin.example.com' }] },
          { id: 2, name: 'buckets', sources: [{ source: 'origin.example.com' }, { origin_type: 's3', config, backup: true }] },
        ],
      },
    });
    const dir = writeStackFiles({});
    const result = await runCliInProcess(['import', 'cdn_origin_group', '--out', 'imported.yaml'], { env: emulatorEnv(emu), cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/cdn_origin_group not imported: .*name "buckets": .*origins\.1\.s3\.access_key_id: must be exactly one \$\{env:NAME\} reference/);
    const text = readFileSync(join(dir, 'imported.yaml'), 'utf8');
    expect(text).toContain('name: hosts');
    expect(text).not.toContain('name: buckets');
    expectNoSecret(result.stdout, result.stderr, text);
  });
});
