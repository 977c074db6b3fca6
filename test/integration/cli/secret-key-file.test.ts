/**
 * cloud_secret's `private_key_file:` (issue 34) through the CLI in-process against the emulator:
 * the key is read from a file next to the stack when the stack is loaded, sent only in the
 * secret's create, and never in any output, log, saved plan or error; a saved plan holds its
 * fingerprint, so a key file changed after the plan makes the plan stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { driveTasks, emulatorEnv } from '../../helpers/apply.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { writeStackFiles } from '../../helpers/stack-files.js';
import { TEST_TLS_KEY } from '../../helpers/tls-key.js';

const CERT = readFileSync('examples/load-balanced.crt', 'utf8');
/** What only the key holds: no output may contain it. */
const KEY_TEXT = 'FakeTestKey';

const stack = (secret: string) =>
  `version: 1\nname: s\ndefaults: { project_id: 1, region_id: 76 }\nresources:\n  cert:\n    type: cloud_secret\n    name: web-cert\n    certificate_file: web.crt\n    certificate_chain_file: web.crt\n${secret}`;

describe('cloud_secret private_key_file', () => {
  let emu: TestEmulator;
  beforeEach(async () => {
    emu = await startTestEmulator({ taskDurationMs: 1000 });
  });
  afterEach(async () => {
    await emu.close();
  });

  /** Runs the CLI with every request logged (EDGEFORM_LOG=trace); the key is in none of its output. */
  const cli = async (args: string[], env: Record<string, string> = {}) => {
    const result = await driveTasks(emu, runCliInProcess(args, { env: { ...emulatorEnv(emu), EDGEFORM_LOG: 'trace', ...env } }), 1000);
    expect(`${result.stdout}${result.stderr}`).not.toContain(KEY_TEXT);
    return result;
  };

  it('reads the key from the file: validate, plan --out and apply of the saved plan send it once and never show it', async () => {
    const dir = writeStackFiles({ 'stack.yaml': stack('    private_key_file: tls/web.key\n'), 'web.crt': CERT, 'tls/web.key': TEST_TLS_KEY });
    const file = join(dir, 'stack.yaml');
    const valid = await cli(['validate', file]);
    expect(valid.code, valid.stderr).toBe(0);

    const planFile = join(dir, 'plan.json');
    const plan = await cli(['plan', file, '--out', planFile]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('+ private_key_file: "tls/web.key"');
    const saved = readFileSync(planFile, 'utf8');
    expect(saved).not.toContain(KEY_TEXT);
    expect(saved).not.toContain('PRIVATE KEY');
    // The saved plan holds the key's fingerprint (its sha256), which apply checks against the file.
    expect(saved).toMatch(/EDGEFORM_FILE_SHA256_[0-9a-f]{64}/);

    const applied = await cli(['apply', planFile, '--stack', file]);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain('Apply complete! Resources: 1 added, 0 changed, 0 destroyed.');
    const [secret] = [...emu.state.secrets.values()];
    expect(secret!.payload?.private_key).toBe(TEST_TLS_KEY);
    // The create's request log line (EDGEFORM_LOG=trace) was written and holds no key: see cli().
    expect(applied.stderr).toContain('POST /cloud/v2/secrets/1/76');

    const again = await cli(['plan', file, '--detailed-exitcode']);
    expect(again.code, again.stdout + again.stderr).toBe(0);
  });

  it('refuses a saved plan once the key file changed, before any write', async () => {
    const dir = writeStackFiles({ 'stack.yaml': stack('    private_key_file: web.key\n'), 'web.crt': CERT, 'web.key': TEST_TLS_KEY });
    const planFile = join(dir, 'plan.json');
    expect((await cli(['plan', join(dir, 'stack.yaml'), '--out', planFile])).code).toBe(0);
    writeFileSync(join(dir, 'web.key'), TEST_TLS_KEY.replace('FakeTestKeyFake', 'FakeTestKeyElse'));
    emu.requests.length = 0;
    const applied = await cli(['apply', planFile, '--stack', join(dir, 'stack.yaml')]);
    expect(applied.code).toBe(1);
    // The stack's digest covers the key's fingerprint: the stack is not the one the plan was made from.
    expect(applied.stderr).toContain('is not the stack the saved plan was made from');
    expect(applied.stderr).toContain('nothing was applied');
    expect(emu.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('refuses a missing key file at its place in the stack, before any request', async () => {
    const dir = writeStackFiles({ 'stack.yaml': stack('    private_key_file: missing.key\n'), 'web.crt': CERT });
    const result = await cli(['plan', join(dir, 'stack.yaml')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/stack\.yaml:10:23: error: private_key_file "missing\.key": no such file/);
    expect(emu.requests).toEqual([]);
  });

  it('refuses a key file that holds no PEM private key without quoting it, and shows no code frame of it', async () => {
    const dir = writeStackFiles({ 'stack.yaml': stack('    private_key_file: web.key\n'), 'web.crt': CERT, 'web.key': 'FakeTestKey not a PEM key\n' });
    const result = await cli(['validate', join(dir, 'stack.yaml')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/stack\.yaml:10:23: error: private_key_file "web\.key" is not a PEM private key/);
  });

  it('takes exactly one of private_key and private_key_file', async () => {
    const both = writeStackFiles({ 'stack.yaml': stack('    private_key: ${env:TLS_KEY}\n    private_key_file: web.key\n'), 'web.crt': CERT, 'web.key': TEST_TLS_KEY });
    const twice = await cli(['validate', join(both, 'stack.yaml')], { TLS_KEY: TEST_TLS_KEY });
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain('private_key_file must not be set together with private_key');
    const neither = writeStackFiles({ 'stack.yaml': stack(''), 'web.crt': CERT });
    const none = await cli(['validate', join(neither, 'stack.yaml')]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('must be set (or private_key_file) when secret_id is not');
  });
});
