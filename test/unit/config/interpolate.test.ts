import { describe, expect, it } from 'vitest';
import { interpolate, isWholeReference } from '../../../src/config/interpolate.js';
import { loadStack } from '../../../src/config/load-stack.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

describe('interpolate', () => {
  it('expands ${env:NAME} anywhere in a string', () => {
    expect(interpolate('ops+${env:TEAM}@example.com', { TEAM: 'edge' })).toEqual({ ok: true, value: 'ops+edge@example.com', references: ['TEAM'] });
  });

  it('expands several references and keeps an empty value', () => {
    expect(interpolate('${env:A}-${env:B}', { A: 'x', B: '' })).toMatchObject({ ok: true, value: 'x-' });
  });

  it('treats $${ as a literal ${ and does not expand what follows', () => {
    expect(interpolate('cost $${env:HOME} and ${env:A}', { A: '1', HOME: '/root' })).toMatchObject({ ok: true, value: 'cost ${env:HOME} and 1' });
  });

  it('leaves a lone $ alone (platform keys and prices contain one)', () => {
    expect(interpolate('5$ each', {})).toMatchObject({ ok: true, value: '5$ each' });
  });

  it('reports the first unset variable by name', () => {
    expect(interpolate('${env:SET}${env:MISSING}', { SET: 'x' })).toEqual({ ok: false, reason: 'unset', name: 'MISSING' });
  });

  it('rejects other ${...} forms and unterminated references', () => {
    expect(interpolate('${var.x}', {})).toMatchObject({ ok: false, reason: 'malformed', text: '${var.x}' });
    expect(interpolate('${env:1BAD}', {})).toMatchObject({ ok: false, reason: 'malformed' });
    expect(interpolate('${env:OPEN', { OPEN: 'x' })).toMatchObject({ ok: false, reason: 'malformed' });
  });

  it('recognises a whole-value reference only when nothing else is in the string', () => {
    expect(isWholeReference('${env:PORT}')).toBe(true);
    expect(isWholeReference('x${env:PORT}')).toBe(false);
    expect(isWholeReference('$${env:PORT}')).toBe(false);
  });
});

describe('interpolation in a stack', () => {
  const stack = `version: 1
defaults:
  project_id: \${env:PROJECT}
  region_id: 76
resources:
  vm:
    type: cloud_instance
    instance_id: a7e7e8d6-0b4c-4c2e-9d1e-2f0f0c7b9a11
    flavor_id: g2-standard-\${env:SIZE}
  alerts:
    type: iam_reseller_notification_setting
    reseller_id: 7
    notification_settings_id: 3
    notification_type: failed_login
    email: sec@example.com
    enabled: \${env:ALERTS}
`;

  it('turns a whole ${env:NAME} into an integer or boolean where the field wants one', async () => {
    const dir = writeStackFiles({ 'stack.yaml': stack });
    const { stack: loaded, diagnostics } = await loadStack(`${dir}/stack.yaml`, { PROJECT: '12', SIZE: '4-8', ALERTS: 'false' });
    expect(diagnostics).toEqual([]);
    expect(loaded!.resources[0]!.attributes).toMatchObject({ project_id: 12, flavor_id: 'g2-standard-4-8' });
    expect(loaded!.resources[1]!.attributes).toMatchObject({ enabled: false });
  });

  it('reports a variable that is not a number as a type error at the reference', async () => {
    const dir = writeStackFiles({ 'stack.yaml': stack });
    const { diagnostics } = await loadStack(`${dir}/stack.yaml`, { PROJECT: 'twelve', SIZE: '4-8', ALERTS: 'true' });
    expect(diagnostics.map((d) => [d.code, d.range?.start.line, d.range?.start.column, d.summary])).toEqual([
      ['invalid-type', 3, 15, 'project_id must be an integer, not a string'],
    ]);
  });

  it('never echoes the value of a variable in a diagnostic', async () => {
    const dir = writeStackFiles({ 'stack.yaml': stack });
    const { diagnostics } = await loadStack(`${dir}/stack.yaml`, { PROJECT: 's3cr3t-value', SIZE: '4-8', ALERTS: 'true' });
    expect(JSON.stringify(diagnostics)).not.toContain('s3cr3t-value');
  });

  it('keeps a quoted number a string: only ${env:...} references are converted', async () => {
    const dir = writeStackFiles({ 'stack.yaml': 'version: 1\nresources:\n  app:\n    type: fastedge_app\n    app_id: "1234"\n' });
    const { diagnostics } = await loadStack(`${dir}/stack.yaml`, {});
    expect(diagnostics.map((d) => d.code)).toEqual(['invalid-type']);
  });
});
