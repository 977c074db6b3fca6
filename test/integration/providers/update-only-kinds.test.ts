import { describe, expect, it } from 'vitest';
import type { ResourceBlock } from '../../../src/config/types.js';
import { bindProvider } from '../../../src/kinds/provider.js';
import { providers } from '../../../src/kinds/providers.js';
import { DEMO, type TestEmulator } from '../../helpers/emulator.js';
import { planChange, useProviderHarness, type ProviderHarness } from '../../helpers/providers.js';
import { resource } from '../../helpers/stack.js';
import { REF } from '../../helpers/ref.js';

let emu: TestEmulator;
let h: ProviderHarness;
useProviderHarness((e, harness) => ([emu, h] = [e, harness]));

const base = { project_id: 1, region_id: 76, ensure: 'present' as const };
/** Each kind edgeform can update but never delete, with a planned update on the demo world. */
const kinds: [string, () => ResourceBlock, () => unknown][] = [
  [
    'cloud_k8s_cluster',
    () => resource('cloud_k8s_cluster', 'cluster', { ...base, cluster_name: DEMO.cluster, version: 'v1.31.3' }),
    () => emu.state.k8sClusters.get(`1/76/${DEMO.cluster}`)!.version,
  ],
];

describe('the kinds edgeform cannot delete', () => {
  it.each(kinds)('%s refuses a delete (a tampered plan) and sends nothing', async (_type, block, live) => {
    const change = await planChange(h.ctx, block());
    expect(change.action).toBe('update');
    const before = h.sent.length;
    const state = structuredClone(live());
    const provider = bindProvider(providers.resources, { ...change, action: 'delete' }, REF.stack);
    await expect(provider.apply(h.ctx)).rejects.toMatchObject({ code: 'EDGEFORM_PLAN_PAYLOAD', message: expect.stringContaining('delete') });
    expect(h.sent.slice(before)).toEqual([]);
    expect(live()).toEqual(state);
  });
});
