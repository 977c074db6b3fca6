import { describe, expect, it } from 'vitest';
import { describeStep, nextUpgradeStep, parseK8sVersion, planUpgradePath } from '../../../../src/kinds/cloud-k8s-cluster/upgrade-path.js';

describe('planUpgradePath', () => {
  it('plans nothing when the cluster is at the target', () => {
    expect(planUpgradePath('v1.29.8', 'v1.29.8', ['v1.30.6'])).toEqual({ kind: 'none' });
  });

  it('plans one step when the target is offered', () => {
    expect(planUpgradePath('v1.29.8', 'v1.30.6', ['v1.30.6'])).toEqual({ kind: 'path', steps: [{ minor: 'v1.30', version: 'v1.30.6' }] });
  });

  it('plans one step per minor version, the first from the offer and the last the target', () => {
    const path = planUpgradePath('v1.29.8', 'v1.32.1', ['v1.30.6']);
    expect(path.kind).toBe('path');
    if (path.kind !== 'path') return;
    expect(path.steps.map(describeStep)).toEqual(['v1.30.6', 'v1.31.x', 'v1.32.1']);
  });

  it('compares versions as versions, not strings (v1.9 < v1.10)', () => {
    const path = planUpgradePath('v1.9.3', 'v1.10.2', ['v1.10.2']);
    expect(path).toEqual({ kind: 'path', steps: [{ minor: 'v1.10', version: 'v1.10.2' }] });
    expect(planUpgradePath('v1.10.2', 'v1.9.3', []).kind).toBe('error');
  });

  it('refuses a downgrade', () => {
    expect(planUpgradePath('v1.31.3', 'v1.30.6', [])).toEqual({
      kind: 'error',
      message: 'downgrading from v1.31.3 to v1.30.6 is not supported; the platform only upgrades',
    });
  });

  it('refuses a major version change', () => {
    expect(planUpgradePath('v1.31.3', 'v2.0.0', []).kind).toBe('error');
  });

  it('refuses a next-minor target the platform does not offer, listing the offer', () => {
    expect(planUpgradePath('v1.29.8', 'v1.30.5', ['v1.30.6'])).toEqual({
      kind: 'error',
      message: 'the platform does not offer v1.30.5 as an upgrade of v1.29.8 (offered: v1.30.6)',
    });
  });

  it('refuses a path whose first step is not offered', () => {
    const path = planUpgradePath('v1.29.8', 'v1.31.3', []);
    expect(path).toEqual({ kind: 'error', message: 'the platform offers no upgrade of v1.29.8 to v1.30 on the way to v1.31.3 (offered: none)' });
  });

  it('refuses a malformed target', () => {
    expect(planUpgradePath('v1.29.8', '1.31', []).kind).toBe('error');
  });
});

describe('nextUpgradeStep', () => {
  it('takes the target when it is offered', () => {
    expect(nextUpgradeStep('v1.30.6', 'v1.31.3', ['v1.31.3'])).toEqual({ kind: 'step', version: 'v1.31.3', final: true });
  });

  it('takes the newest offered patch of the next minor on the way', () => {
    expect(nextUpgradeStep('v1.29.8', 'v1.32.1', ['v1.30.2', 'v1.30.10', 'v1.31.0'])).toEqual({ kind: 'step', version: 'v1.30.10', final: false });
  });
});

describe('parseK8sVersion', () => {
  it('accepts the platform spelling with and without v', () => {
    expect(parseK8sVersion('v1.31.3')?.version).toBe('1.31.3');
    expect(parseK8sVersion('1.31.3')?.version).toBe('1.31.3');
    expect(parseK8sVersion('v1.31')).toBeNull();
  });
});
