import { describe, expect, it } from 'vitest';
import { matchesPlanned, matchesPlannedChange, resolveChange } from '../../../src/apply/resolve-references.js';
import { providers } from '../../../src/kinds/providers.js';
import { checkResolvedAttributes } from '../../../src/plan/references.js';
import { KNOWN_AFTER_APPLY, type ResourceChange } from '../../../src/plan/types.js';

const IP = 'cloud_floating_ip.edge';
const planned: ResourceChange = {
  address: 'fastedge_app.gw',
  type: 'fastedge_app',
  name: 'gw',
  action: 'create',
  desired: { name: 'gw-app', binary: 502, env: { IP: KNOWN_AFTER_APPLY, URL: KNOWN_AFTER_APPLY }, ensure: 'present' },
  before: null,
  after: { app_id: KNOWN_AFTER_APPLY, name: 'gw-app', binary: 502, env: { IP: KNOWN_AFTER_APPLY, URL: KNOWN_AFTER_APPLY } },
  changes: [],
  payload: { body: { name: 'gw-app', binary: 502, env: { IP: KNOWN_AFTER_APPLY, URL: KNOWN_AFTER_APPLY } } },
  fingerprint: 'x',
  lock_task_id: null,
  depends_on: [IP],
  warnings: [],
  notes: [],
  references: [
    { path: ['env', 'IP'], template: '${cloud_floating_ip.edge.floating_ip_address}' },
    { path: ['env', 'URL'], template: 'http://${cloud_floating_ip.edge.floating_ip_address}/' },
  ],
};

describe("the executor's resolution of references", () => {
  it('puts the values its blocks were left with into desired and sends the create plan of them', () => {
    const ready = resolveChange(planned, (a) => (a === IP ? { floating_ip_address: '203.0.113.9' } : undefined), providers.resources, 'refs');
    expect(ready).toMatchObject({
      change: {
        desired: { env: { IP: '203.0.113.9', URL: 'http://203.0.113.9/' } },
        after: { app_id: KNOWN_AFTER_APPLY, env: { IP: '203.0.113.9', URL: 'http://203.0.113.9/' } },
        payload: { body: { env: { IP: '203.0.113.9', URL: 'http://203.0.113.9/' } } },
      },
    });
  });

  it('fails the change, naming the reference, when its block shows no value, or a value the field refuses', () => {
    expect(resolveChange(planned, () => ({ floating_ip_address: null }), providers.resources, 'refs')).toEqual({
      error: 'env.IP: ${cloud_floating_ip.edge.floating_ip_address} has no value: cloud_floating_ip.edge shows none after apply',
    });
    const status: ResourceChange = {
      ...planned,
      desired: { ...planned.desired, status: KNOWN_AFTER_APPLY } as never,
      references: [{ path: ['status'], template: '${fastedge_app.b.binary}' }],
    };
    expect(resolveChange(status, () => ({ binary: 502 }), providers.resources, 'refs')).toMatchObject({
      error: expect.stringMatching(/^status: the resolved value 502 is not valid: /) as unknown,
    });
  });

  it('judges the resolved block as the plan saw it: a problem the plan was made with is no news, a problem at a reference or one its value brings about is', () => {
    // The loader reads user_data_file into user_data: the plan was made with both set.
    const vm = {
      project_id: 1,
      region_id: 76,
      flavor_id: 'g1',
      image_id: '0a1b2c3d-0000-4000-8000-0000000000aa',
      user_data_file: 'init.yaml',
      user_data: '#!/bin/sh\n',
      tags_policy: 'authoritative',
      ensure: 'present',
    };
    const interfaces = (subnet: string) => [{ type: 'subnet', network_id: '0b5c8a7e-2f64-4c0e-9a51-7c8ad1f0c2d4', subnet_id: subnet }];
    const pending = [{ path: ['interfaces', 0, 'subnet_id'] }];
    const planned = { ...vm, interfaces: interfaces(KNOWN_AFTER_APPLY) };
    expect(checkResolvedAttributes('cloud_instance', { ...vm, interfaces: interfaces('b39792c3-3160-4356-912e-ba396c95cdcf') }, planned, pending)).toBeUndefined();
    expect(checkResolvedAttributes('cloud_instance', { ...vm, interfaces: interfaces('not-a-uuid') }, planned, pending)).toMatch(
      /^interfaces\[0\]\.subnet_id: the resolved value "not-a-uuid" is not valid/,
    );
    // A gateway outside the cidr a reference resolved to: the plan could not see it.
    const subnet = {
      project_id: 1,
      region_id: 76,
      name: 'app',
      network_id: 'b39792c3-3160-4356-912e-ba396c95cdcf',
      gateway_ip: '10.9.0.1',
      tags_policy: 'authoritative',
      ensure: 'present',
    };
    expect(checkResolvedAttributes('cloud_subnet', { ...subnet, cidr: '10.0.0.0/24' }, { ...subnet, cidr: KNOWN_AFTER_APPLY }, [{ path: ['cidr'] }])).toBe(
      'gateway_ip: the resolved value "10.9.0.1" is not valid: must be inside cidr 10.0.0.0/24',
    );
  });

  it('matches a fresh plan against the planned one with each unknown standing for any value, and nothing else', () => {
    expect(matchesPlanned({ env: { IP: KNOWN_AFTER_APPLY, MODE: 'a' } }, { env: { IP: '1.2.3.4', MODE: 'a' } })).toBe(true);
    expect(matchesPlanned({ env: { IP: KNOWN_AFTER_APPLY, MODE: 'a' } }, { env: { IP: '1.2.3.4', MODE: 'b' } })).toBe(false);
    expect(matchesPlanned({ env: { IP: KNOWN_AFTER_APPLY } }, { env: { IP: '1.2.3.4', EXTRA: 'x' } })).toBe(false);
    const change = { path: ['env', 'IP'], op: 'update' as const, before: '192.0.2.1', after: KNOWN_AFTER_APPLY };
    expect(matchesPlannedChange(change, { ...change, after: '203.0.113.9' })).toBe(true);
    expect(matchesPlannedChange(change, { ...change, before: '192.0.2.2', after: '203.0.113.9' })).toBe(false);
  });
});
