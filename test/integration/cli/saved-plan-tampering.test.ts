import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { DEMO, type TestEmulator, useTestEmulator } from '../../helpers/emulator.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

/**
 * A saved plan is an artifact that travels between CI jobs, so anyone who can write it must not
 * be able to make apply do what was not reviewed: apply derives every request from the stack in
 * the working tree and the live state, and sends nothing unless that equals the plan exactly.
 */
const STACK = [
  'version: 1',
  'defaults: { project_id: 1, region_id: 76 }',
  'resources:',
  `  web_ip: { type: cloud_floating_ip, floating_ip_id: ${DEMO.fip}, tags: { env: prod, team: edge } }`,
  '  login_alerts:',
  '    type: iam_reseller_notification_setting',
  '    reseller_id: 7',
  '    notification_settings_id: 3',
  '    notification_type: failed_login',
  '    email: sec@example.com',
  '    enabled: true',
  '',
].join('\n');

type PlanJson = {
  stack: { sources: string[]; digest: string };
  base_url: string;
  resource_changes: Array<Record<string, any>>;
  checks: unknown[];
  [key: string]: unknown;
};

let emu: TestEmulator;
let cwd: string;
let env: Record<string, string>;
let original: string;

useTestEmulator((started) => (emu = started), { taskDurationMs: 0, resetEach: false });
beforeEach(async () => {
  emu.reset();
  cwd = writeStackFiles({ 'stack.yaml': STACK });
  env = { EDGEFORM_BASE_URL: emu.url, EDGEFORM_API_KEY: emu.apiKey, EDGEFORM_TASK_POLL_INTERVAL: '20' };
  const planned = await runCliInProcess(['plan', 'stack.yaml', '--out', 'plan.json'], { env, cwd });
  expect(planned.code).toBe(0);
  original = readFileSync(join(cwd, 'plan.json'), 'utf8');
  emu.requests.length = 0;
});

const edit = (change: (plan: PlanJson) => void): void => {
  const plan = JSON.parse(original) as PlanJson;
  change(plan);
  writeFileSync(join(cwd, 'plan.json'), JSON.stringify(plan, null, 2));
};
const byAddress = (plan: PlanJson, address: string) => plan.resource_changes.find((c) => c.address === address)!;
const writes = () => emu.requests.filter((r) => r.method !== 'GET');
const apply = (extra: { env?: Record<string, string | undefined> } = {}) => runCliInProcess(['apply', 'plan.json'], { env: { ...env, ...extra.env }, cwd });

/** The run was refused before anything was changed, with a message naming why. */
async function expectRefused(result: Awaited<ReturnType<typeof runCliInProcess>>, ...messages: string[]): Promise<void> {
  expect(result.code).toBe(1);
  for (const m of messages) expect(result.stderr).toContain(m);
  expect(result.stderr).not.toContain('bug in edgeform');
  expect(result.stdout).not.toContain('Apply complete');
  expect(writes()).toEqual([]);
}

describe('apply PLANFILE applies only what was reviewed', () => {
  it('applies an untouched plan', async () => {
    const result = await apply();
    expect(result.stdout).toContain('Apply complete! Resources: 0 added, 2 changed, 0 destroyed.');
    expect(result.code).toBe(0);
  });

  it('applies a plan made with --target, planning the same selection again', async () => {
    expect((await runCliInProcess(['plan', 'stack.yaml', '--target', 'cloud_floating_ip.web_ip', '--out', 'plan.json'], { env, cwd })).code).toBe(0);
    const result = await apply();
    expect(result.stdout).toContain('Apply complete! Resources: 0 added, 1 changed, 0 destroyed.');
    expect(result.code).toBe(0);
    expect(writes().map((r) => r.path)).toEqual([`/cloud/v2/floatingips/1/76/${DEMO.fip}`]);
  });

  it('refuses a plan whose tags payload was edited while its shown changes were left alone, sending nothing', async () => {
    edit((p) => {
      byAddress(p, 'cloud_floating_ip.web_ip').payload.tags_patch.backdoor = 'yes';
    });
    await expectRefused(await apply(), 'Saved plan does not match', 'cloud_floating_ip.web_ip:', 'payload in the plan file is not what the stack and the platform give now');
  });

  it('refuses a plan whose notification e-mail payload was edited, sending nothing', async () => {
    edit((p) => {
      byAddress(p, 'iam_reseller_notification_setting.login_alerts').payload.body.email = 'attacker@example.net';
    });
    await expectRefused(await apply(), 'iam_reseller_notification_setting.login_alerts:', 'payload');
  });

  it('refuses a plan edited consistently (desired, after, changes and payload), sending nothing', async () => {
    edit((p) => {
      const c = byAddress(p, 'iam_reseller_notification_setting.login_alerts');
      c.desired.email = 'attacker@example.net';
      c.after.email = 'attacker@example.net';
      for (const ch of c.changes) if (ch.path[0] === 'email') ch.after = 'attacker@example.net';
      c.payload.body.email = 'attacker@example.net';
    });
    await expectRefused(
      await apply(),
      'iam_reseller_notification_setting.login_alerts:',
      'desired, after, changes, payload in the plan file are not what the stack and the platform give now',
    );
  });

  it('refuses a delete of an app the stack never mentions, added to the plan file, sending nothing', async () => {
    edit((p) => {
      p.resource_changes.push({
        address: 'fastedge_app.edge_router',
        type: 'fastedge_app',
        name: 'edge_router',
        action: 'delete',
        desired: { app_id: 1300, ensure: 'absent' },
        before: { app_id: 1300, name: 'edge-router' },
        after: null,
        changes: [],
        fingerprint: 'f'.repeat(64),
        lock_task_id: null,
        depends_on: [],
        warnings: [],
        notes: [],
      });
    });
    await expectRefused(await apply(), 'the saved plan has fastedge_app.edge_router, which its stack does not declare');
    expect(emu.requests).toEqual([]);
    expect(emu.state.fastedgeApps.has(1300)).toBe(true);
  });

  it('refuses a plan whose stack digest was edited, sending nothing', async () => {
    edit((p) => {
      p.stack.digest = '0'.repeat(64);
    });
    await expectRefused(await apply(), 'is not the stack the saved plan was made from');
    expect(emu.requests).toEqual([]);
  });

  it('refuses a plan when the stack on disk changed since, sending nothing', async () => {
    writeFileSync(join(cwd, 'stack.yaml'), STACK.replace('sec@example.com', 'other@example.com'));
    await expectRefused(await apply(), 'is not the stack the saved plan was made from');
    expect(emu.requests).toEqual([]);
  });

  it('applies a plan with the stack named by --stack when it is the same stack', async () => {
    const elsewhere = writeStackFiles({ 'copy.yaml': STACK });
    edit((p) => {
      p.stack.sources = ['gone/stack.yaml'];
    });
    const refused = await apply();
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('is not in this working directory');
    const result = await runCliInProcess(['apply', 'plan.json', '--stack', join(elsewhere, 'copy.yaml')], { env, cwd });
    expect(result.stdout).toContain('Apply complete! Resources: 0 added, 2 changed, 0 destroyed.');
    expect(result.code).toBe(0);
  });
});

describe('apply PLANFILE never lets the plan file choose where the key is sent', () => {
  let seen: IncomingHttpHeaders[];
  let evil: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const listener = createServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    evil = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
    close = () => new Promise((resolve) => listener.close(() => resolve()));
  });
  afterAll(async () => close());
  beforeEach(() => {
    seen = [];
  });

  /** A stack elsewhere on the machine whose provider.base_url is the listener, and its digest. */
  async function foreignStack(): Promise<{ path: string; digest: string }> {
    const dir = mkdtempSync(join(tmpdir(), 'edgeform-foreign-'));
    const path = join(dir, 'evil.yaml');
    writeFileSync(path, STACK.replace('version: 1', `version: 1\nprovider: { base_url: "${evil}" }`));
    const planned = await runCliInProcess(['plan', path, '--out', join(dir, 'p.json')], { env: { EDGEFORM_API_KEY: emu.apiKey, EDGEFORM_BASE_URL: emu.url }, cwd: dir });
    expect(planned.code).toBe(0);
    return { path, digest: (JSON.parse(readFileSync(join(dir, 'p.json'), 'utf8')) as PlanJson).stack.digest };
  }

  for (const [what, source] of [
    ['an absolute path', (p: string) => p],
    ['a relative path that leaves the working directory', (p: string) => join('..', '..', p)],
  ] as const) {
    it(`refuses a plan whose stack sources name another YAML file by ${what}, with EDGEFORM_BASE_URL unset`, async () => {
      const foreign = await foreignStack();
      emu.requests.length = 0;
      edit((p) => {
        p.stack.sources = [source(foreign.path)];
        p.stack.digest = foreign.digest;
        p.base_url = evil;
      });
      const result = await apply({ env: { EDGEFORM_BASE_URL: undefined } });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/outside this working directory|is not in this working directory/);
      expect(seen).toEqual([]);
      expect(emu.requests).toEqual([]);
    });
  }
});

describe('apply PLANFILE refuses a plan file that is not a well-formed plan', () => {
  const cases: Array<[string, () => void, string]> = [
    [
      'a depends_on cycle',
      () =>
        edit((p) => {
          byAddress(p, 'cloud_floating_ip.web_ip').depends_on = ['iam_reseller_notification_setting.login_alerts'];
          byAddress(p, 'iam_reseller_notification_setting.login_alerts').depends_on = ['cloud_floating_ip.web_ip'];
        }),
      'dependency cycle',
    ],
    ['a truncated file', () => writeFileSync(join(cwd, 'plan.json'), original.slice(0, original.length / 2)), 'plan.json is a corrupt plan file: it is not valid JSON'],
    ['garbage bytes', () => writeFileSync(join(cwd, 'plan.json'), Buffer.from([0x00, 0xff, 0x13, 0x37, 0x1b, 0x5b])), 'plan.json is a corrupt plan file'],
    ['an unknown field', () => edit((p) => (p.execute_also = ['rm -rf'])), 'plan.json is a corrupt plan file: (root): Unrecognized key: "execute_also"'],
    ['a change without its fingerprint', () => edit((p) => delete byAddress(p, 'cloud_floating_ip.web_ip').fingerprint), 'resource_changes.0.fingerprint'],
    [
      'an address that does not match its type and name',
      () => edit((p) => (byAddress(p, 'cloud_floating_ip.web_ip').name = 'other_ip')),
      'does not match type cloud_floating_ip and name other_ip',
    ],
    ['an address twice', () => edit((p) => p.resource_changes.push(p.resource_changes[0]!)), 'appears more than once'],
  ];
  for (const [what, make, message] of cases) {
    it(`refuses ${what} as a corrupt plan file, sending nothing`, async () => {
      make();
      const result = await apply();
      await expectRefused(result, message);
      expect(result.stderr).not.toContain('does not state its version');
      expect(emu.requests).toEqual([]);
    });
  }

  it('reads a truncated plan file without a .json name as a corrupt plan, not as a stack', async () => {
    writeFileSync(join(cwd, 'saved.plan'), original.slice(0, 200));
    const result = await runCliInProcess(['apply', 'saved.plan'], { env, cwd });
    await expectRefused(result, 'saved.plan is a corrupt plan file');
    expect(result.stderr).not.toContain('does not state its version');
  });
});
