import type { ResourceRef } from '../../src/kinds/provider.js';

/** The stack position provider tests read with: blocks that name their id never use it. */
export const REF: ResourceRef = { address: 'test.block', stack: 'tests' };
