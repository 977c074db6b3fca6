import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emulatorEnv, writesSeen } from '../../helpers/apply.js';
import type { CliResult } from '../../helpers/cli.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { startTestEmulator, type TestEmulator, closeAfterEach } from '../../helpers/emulator.js';
import { writeStackFiles } from '../../helpers/stack-files.js';
import { createOwnerSeal } from '../../../src/kinds/owner-seal.js';

/**
 * Two stacks over one DNS zone: the zone records the one stack with prune: true that prunes its
 * record sets (its meta's owner record), so another pruning stack is refused at plan naming the
 * owner and the line that takes it over, a stack without prune only reads it, renames keep it,
 * import leaves it to its owner, and with EDGEFORM_OWNER_KEY a forged record prunes nothing.
 */
const output = (r: CliResult) => `${r.stdout}\n${r.stderr}`;
const KEY = 'Owner-Key+zones/0042ZZqq-distinct';

let emu: TestEmulator | undefined;
closeAfterEach(() => [emu]);

const txt = (key: string, name: string, text: string) =>
  `  ${key}:\n    type: dns_rrset\n    zone: \${dns_zone.main.name}\n    name: ${name}\n    record_type: TXT\n    resource_records: [{ content: ["${text}"] }]\n`;
/** A stack over zone shop.example with its own record set. */
const stack = (name: string, top: string, rrsets: string, zone = '  main: { type: dns_zone, name: shop.example }\n') =>
  `version: 1\nname: ${name}\n${top}resources:\n${zone}${rrsets}`;
const fileOf = (text: string) => join(writeStackFiles({ 'stack.yaml': text }), 'stack.yaml');
const zoneOf = (e: TestEmulator) => e.state.dnsZones.get('shop.example')!;
const rrsetKeys = (e: TestEmulator) => [...zoneOf(e).rrsets.keys()].filter((k) => !k.endsWith('/SOA') && !k.endsWith('/NS')).sort();

describe('one pruning owner per DNS zone', () => {
  it('a second stack with prune: true is refused at plan naming the owner, and neither stack destroys the other’s record sets', async () => {
    emu = await startTestEmulator({});
    const env = emulatorEnv(emu);
    const web = fileOf(stack('web', 'prune: true\n', txt('www', 'www', 'web')));
    const created = await runCliInProcess(['apply', web, '--auto-approve'], { env });
    expect(created.code, output(created)).toBe(0);
    expect(created.stdout).toContain(`the zone's meta records stack "web" (dns_zone.main) as the one stack that prunes its record sets`);
    expect(zoneOf(emu).meta).toEqual({ edgeform: { stack: 'web', address: 'dns_zone.main' } });

    // Another pruning stack declaring the zone (the examples' zone: ${dns_zone.main.name} invites it).
    const mail = fileOf(stack('mail', 'prune: true\n', txt('mx_txt', 'mail', 'mail')));
    const writes = writesSeen(emu).length;
    for (const command of ['plan', 'apply']) {
      const refused = await runCliInProcess([command, mail, ...(command === 'apply' ? ['--auto-approve'] : [])], { env });
      expect(refused.code).toBe(1);
      expect(refused.stdout).toContain(
        'dns_zone.main: dns_zone "shop.example" is pruned by stack "web" (dns_zone.main), as its owner record (meta.edgeform) says; with prune: true this stack would prune it too',
      );
      expect(refused.stdout).toContain('To take it over, add "moved_from: web/dns_zone.main" to this block');
      expect(refused.stdout).toContain('to only read it, remove prune: true from this stack');
    }
    expect(writesSeen(emu).length).toBe(writes);
    expect(rrsetKeys(emu)).toEqual(['www.shop.example/TXT']);

    // Without prune, the other stack only reads the zone: its record set is made, nothing pruned, no owner written.
    const reader = fileOf(stack('mail', '', txt('mx_txt', 'mail', 'mail')));
    const read = await runCliInProcess(['apply', reader, '--auto-approve'], { env });
    expect(read.code, output(read)).toBe(0);
    expect(read.stdout).toContain('1 added, 0 changed, 0 destroyed');
    expect(rrsetKeys(emu)).toEqual(['mail.shop.example/TXT', 'www.shop.example/TXT']);
    expect(zoneOf(emu).meta).toEqual({ edgeform: { stack: 'web', address: 'dns_zone.main' } });
    // The owner prunes what it does not declare in its zone, the reader's record set included: the plan says so.
    const owner = await runCliInProcess(['plan', web], { env });
    expect(owner.stdout).toContain('- dns_rrset.shop.example/mail.shop.example/TXT (pruned)');
    expect(owner.stdout).not.toContain('www.shop.example/TXT (pruned)');
  });

  it('takes a zone over with moved_from OTHER/dns_zone.NAME, keeps it through renamed_from, and refuses moved_from without prune', async () => {
    emu = await startTestEmulator({});
    const env = emulatorEnv(emu);
    expect((await runCliInProcess(['apply', fileOf(stack('web', 'prune: true\n', txt('www', 'www', 'web'))), '--auto-approve'], { env })).code).toBe(0);

    const takeOver = (name: string, top: string) =>
      stack(name, top, txt('www', 'www', 'web'), '  main:\n    type: dns_zone\n    name: shop.example\n    moved_from: web/dns_zone.main\n');
    const refused = await runCliInProcess(['validate', fileOf(takeOver('mail', ''))], { env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('moved_from on a dns_zone takes over its owner record, which only a stack with prune: true writes');

    const mail = fileOf(takeOver('mail', 'prune: true\n'));
    const plan = await runCliInProcess(['plan', mail], { env });
    expect(plan.code, output(plan)).toBe(0);
    expect(plan.stdout).toContain('~ dns_zone.main (moved from web/dns_zone.main)');
    expect(plan.stdout).toContain(`the zone's pruning owner moves from stack "web" (dns_zone.main) to stack "mail" (dns_zone.main) (meta.edgeform)`);
    expect((await runCliInProcess(['apply', mail, '--auto-approve'], { env })).code).toBe(0);
    expect(zoneOf(emu).meta).toEqual({ edgeform: { stack: 'mail', address: 'dns_zone.main' } });
    expect((await runCliInProcess(['plan', mail, '--detailed-exitcode'], { env })).code).toBe(0);
    // The former owner is refused now, naming the new one.
    const former = await runCliInProcess(['plan', fileOf(stack('web', 'prune: true\n', txt('www', 'www', 'web')))], { env });
    expect(former.stdout).toContain('is pruned by stack "mail" (dns_zone.main)');

    // A renamed stack keeps the zone: renamed_from moves its owner record like its ownership tags.
    const renamed = fileOf(stack('mail-v2', 'renamed_from: mail\nprune: true\n', txt('www', 'www', 'web')));
    const moved = await runCliInProcess(['apply', renamed, '--auto-approve'], { env });
    expect(moved.code, output(moved)).toBe(0);
    expect(zoneOf(emu).meta).toEqual({ edgeform: { stack: 'mail-v2', address: 'dns_zone.main' } });
    expect(rrsetKeys(emu)).toEqual(['www.shop.example/TXT']);
    expect((await runCliInProcess(['plan', renamed, '--detailed-exitcode'], { env })).code).toBe(0);
  });

  it('a zone created with a value known only at apply still records its pruning owner', async () => {
    emu = await startTestEmulator({ taskDurationMs: 0 });
    const env = emulatorEnv(emu);
    const zone =
      '  ns: { type: cloud_floating_ip, project_id: 1, region_id: 76 }\n  main: { type: dns_zone, name: shop.example, primary_server: "${cloud_floating_ip.ns.floating_ip_address}" }\n';
    const file = fileOf(stack('web', 'prune: true\n', '', zone));
    const applied = await runCliInProcess(['apply', file, '--auto-approve'], { env });
    expect(applied.code, output(applied)).toBe(0);
    expect(zoneOf(emu).meta).toEqual({ edgeform: { stack: 'web', address: 'dns_zone.main' } });
    expect((await runCliInProcess(['plan', file, '--detailed-exitcode'], { env })).code).toBe(0);
  });

  it('keeps the owner record out of plans and drift and in every update, and refuses it in a block', async () => {
    emu = await startTestEmulator({});
    const env = emulatorEnv(emu);
    const withMeta = (meta: string) => stack('web', 'prune: true\n', '', `  main: { type: dns_zone, name: shop.example, meta: ${meta} }\n`);
    const file = fileOf(withMeta('{ webhook: { url: "https://hooks.example/a" } }'));
    expect((await runCliInProcess(['apply', file, '--auto-approve'], { env })).code).toBe(0);
    expect(zoneOf(emu).meta).toEqual({ webhook: { url: 'https://hooks.example/a' }, edgeform: { stack: 'web', address: 'dns_zone.main' } });
    const drift = await runCliInProcess(['drift', file], { env });
    expect(drift.code, output(drift)).toBe(0);

    writeFileSync(file, withMeta('{ webhook: { url: "https://hooks.example/b" } }'));
    const changed = await runCliInProcess(['apply', file, '--auto-approve'], { env });
    expect(changed.code, output(changed)).toBe(0);
    expect(changed.stdout).not.toContain('edgeform:');
    expect(zoneOf(emu).meta).toEqual({ webhook: { url: 'https://hooks.example/b' }, edgeform: { stack: 'web', address: 'dns_zone.main' } });

    writeFileSync(file, withMeta('{ edgeform: { stack: web } }'));
    const refused = await runCliInProcess(['validate', file], { env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`the meta key "edgeform" holds edgeform's owner record (the stack that prunes the zone); a block cannot declare it`);
  });

  it('ensure: absent of a zone another stack prunes deletes it, with a warning naming that stack', async () => {
    emu = await startTestEmulator({});
    const env = emulatorEnv(emu);
    expect((await runCliInProcess(['apply', fileOf(stack('web', 'prune: true\n', '')), '--auto-approve'], { env })).code).toBe(0);
    const gone = fileOf(stack('ops', '', '', '  main: { type: dns_zone, name: shop.example, ensure: absent }\n'));
    const plan = await runCliInProcess(['plan', gone], { env });
    expect(plan.code, output(plan)).toBe(0);
    expect(output(plan)).toContain('dns_zone.main: ensure: absent deletes dns_zone "shop.example" with all it holds, which stack "web" prunes');
    expect((await runCliInProcess(['apply', gone, '--auto-approve'], { env })).code).toBe(0);
    expect(emu.state.dnsZones.has('shop.example')).toBe(false);
  });

  it('import leaves out a zone another stack prunes, with its record sets, naming the owner', async () => {
    emu = await startTestEmulator({});
    const env = emulatorEnv(emu);
    expect((await runCliInProcess(['apply', fileOf(stack('web', 'prune: true\n', txt('www', 'www', 'web'))), '--auto-approve'], { env })).code).toBe(0);
    expect((await runCliInProcess(['apply', fileOf('version: 1\nresources:\n  free: { type: dns_zone, name: free.example }\n'), '--auto-approve'], { env })).code).toBe(0);
    const imported = await runCliInProcess(['import', 'dns_zone'], { env });
    expect(imported.code, output(imported)).toBe(0);
    expect(imported.stdout).toContain('name: free.example');
    expect(imported.stdout).not.toContain('name: shop.example');
    expect(imported.stdout).not.toContain('name: www.shop.example');
    expect(output(imported)).toContain(
      'edgeform stack "web" prunes its record sets (its owner record, meta.edgeform, names it as dns_zone.main); import leaves it to that stack (to take it over, give its block moved_from: web/dns_zone.main in a stack with prune: true)',
    );
    expect(output(imported)).toContain('its zone "shop.example" is a dns_zone edgeform stack "web" owns; import leaves it to that stack');
    const named = await runCliInProcess(['import', 'dns_zone', '--name', 'shop.example'], { env });
    expect(named.code).toBe(1);
    expect(named.stderr).toContain(
      `no dns_zone of the account is named "shop.example"; nothing written (the account has 2 dns_zone; left out as other stacks': GET /dns/v2/zones: id "shop.example"`,
    );
  });

  it('setting EDGEFORM_OWNER_KEY later re-marks the owner record; its record sets are pruned once the record proves it', async () => {
    emu = await startTestEmulator({});
    const env = emulatorEnv(emu);
    const web = fileOf(stack('web', 'prune: true\n', txt('www', 'www', 'web')));
    expect((await runCliInProcess(['apply', web, '--auto-approve'], { env })).code).toBe(0);
    await emu.call('POST', '/dns/v2/zones/shop.example/stray.shop.example/TXT', { body: { ttl: 300, resource_records: [{ content: ['stray'] }] } });
    const keyed = { ...env, EDGEFORM_OWNER_KEY: KEY };
    const first = await runCliInProcess(['apply', web, '--auto-approve'], { env: keyed });
    expect(first.code, output(first)).toBe(0);
    expect(first.stdout).toContain("the owner mark of the zone's owner record is re-made with EDGEFORM_OWNER_KEY (it had none)");
    expect(output(first)).toContain('prune: dns_rrset.shop.example/stray.shop.example/TXT');
    expect(rrsetKeys(emu)).toEqual(['stray.shop.example/TXT', 'www.shop.example/TXT']);
    const mark = createOwnerSeal(KEY).mark({ type: 'dns_zone', stack: 'web', address: 'dns_zone.main', identity: 'shop.example' });
    expect(zoneOf(emu).meta).toEqual({ edgeform: { stack: 'web', address: 'dns_zone.main', mark } });
    const second = await runCliInProcess(['apply', web, '--auto-approve'], { env: keyed });
    expect(second.code, output(second)).toBe(0);
    expect(rrsetKeys(emu)).toEqual(['www.shop.example/TXT']);
  });

  it('with EDGEFORM_OWNER_KEY, the owner record carries a mark; a forged record prunes nothing and is reported', async () => {
    emu = await startTestEmulator({});
    const env = { ...emulatorEnv(emu), EDGEFORM_OWNER_KEY: KEY };
    const web = fileOf(stack('web', 'prune: true\n', txt('www', 'www', 'web')));
    expect((await runCliInProcess(['apply', web, '--auto-approve'], { env })).code).toBe(0);
    const mark = createOwnerSeal(KEY).mark({ type: 'dns_zone', stack: 'web', address: 'dns_zone.main', identity: 'shop.example' });
    expect(zoneOf(emu).meta).toEqual({ edgeform: { stack: 'web', address: 'dns_zone.main', mark } });

    // Someone writes the owner record of zone other.example by hand, naming stack "web", to have web prune it.
    await emu.call('POST', '/dns/v2/zones', { body: { name: 'other.example', meta: { edgeform: { stack: 'web', address: 'dns_zone.other', mark } } } });
    await emu.call('POST', '/dns/v2/zones/other.example/victim.other.example/TXT', { body: { ttl: 300, resource_records: [{ content: ['keep me'] }] } });
    const both = fileOf(stack('web', 'prune: true\n', txt('www', 'www', 'web')) + '  other: { type: dns_zone, name: other.example }\n');
    const plan = await runCliInProcess(['plan', both], { env });
    expect(plan.code).toBe(1);
    expect(plan.stdout).toContain(
      `dns_zone.other: dns_zone "other.example" carries this stack's owner record (meta.edgeform), but its owner mark does not verify with EDGEFORM_OWNER_KEY`,
    );
    expect(plan.stdout).toContain('prune: dns_rrset.other.example/victim.other.example/TXT');
    expect(plan.stdout).toContain(`but the owner mark of its zone's owner record (meta.edgeform) does not verify`);
    expect(plan.stdout).not.toContain('victim.other.example/TXT (pruned)');
    const drift = await runCliInProcess(['drift', both, '--format', 'json'], { env });
    const report = JSON.parse(drift.stdout) as { drifted: Array<{ address: string; kind: string }> };
    expect(report.drifted.map((d) => `${d.kind} ${d.address}`).sort()).toEqual(['unproven dns_rrset.other.example/victim.other.example/TXT', 'unproven dns_zone.other']);
    expect(drift.code).toBe(2);
    expect(emu.state.dnsZones.get('other.example')!.rrsets.has('victim.other.example/TXT')).toBe(true);
  });
});
