import { describe, expect, it } from 'vitest';
import { boundHeapGrowth, BOUNDED_HEAP_FROM_BYTES } from '../../../src/cli/heap-growth.js';

describe('boundHeapGrowth', () => {
  it('leaves the heap alone in a process the executable did not start (an in-process run), whatever the input', () => {
    expect(boundHeapGrowth(BOUNDED_HEAP_FROM_BYTES * 4)).toBe(false);
    expect(boundHeapGrowth(0)).toBe(false);
  });
});
