/**
 * The benchmark's scheduling figure counts the samples taken in the executor's scheduling steps
 * and what they call, up to an action's own work or a view's hook (bench/cpu-profile.ts).
 */
import { describe, expect, it } from 'vitest';
import { timeInside, type CpuProfile } from '../../../bench/cpu-profile.js';

/**
 * A profile of one tree: (root) → executePlan → startReadyChanges → { nextReady, runAction →
 * read }, and (root) → (anonymous) → settleChange$1 → onFinish → write, and (garbage collector).
 * Each sample's time is the delta to the next one.
 */
function profile(samples: Array<[node: number, deltaToNextUs: number]>): CpuProfile {
  const frame = (functionName: string) => ({ functionName });
  return {
    nodes: [
      { id: 1, callFrame: frame('(root)'), children: [2, 7, 11] },
      { id: 2, callFrame: frame('executePlan'), children: [3] },
      { id: 3, callFrame: frame('startReadyChanges'), children: [4, 5] },
      { id: 4, callFrame: frame('nextReady') },
      { id: 5, callFrame: frame('runAction'), children: [6] },
      { id: 6, callFrame: frame('read') },
      { id: 7, callFrame: frame(''), children: [8] },
      { id: 8, callFrame: frame('settleChange$1'), children: [9] },
      { id: 9, callFrame: frame('onFinish'), children: [10] },
      { id: 10, callFrame: frame('write') },
      { id: 11, callFrame: frame('(garbage collector)') },
    ],
    startTime: 0,
    endTime: 100_000,
    samples: samples.map(([node]) => node),
    timeDeltas: [0, ...samples.slice(0, -1).map(([, delta]) => delta)],
  };
}

describe('time inside named functions of a CPU profile', () => {
  const steps = ['executePlan', 'startReadyChanges', 'settleChange'];
  const ends = ['runAction', 'onStart', 'onProgress', 'onFinish', 'onRunError'];

  it('counts the steps and what they call, but not an action or a hook they call, nor what runs outside them', () => {
    const time = timeInside(
      profile([
        [4, 1000], // nextReady under startReadyChanges: scheduling
        [3, 2000], // startReadyChanges itself
        [6, 4000], // read under runAction: the action's work
        [8, 8000], // settleChange$1 (a bundler's suffix)
        [10, 16000], // write under onFinish: the view's
        [11, 32000], // garbage collection: no one's
        [7, 0],
      ]),
      steps,
      ends,
    );
    expect(time).toEqual({ ms: 11, totalMs: 100 });
  });

  it('counts nothing when no step ran', () => {
    expect(
      timeInside(
        profile([
          [6, 5000],
          [10, 5000],
          [11, 0],
        ]),
        steps,
        ends,
      ).ms,
    ).toBe(0);
  });
});
