import { describe, expect, it } from 'vitest';
import { createApplyWalk, type ApplyWalk } from '../../../src/apply/walk.js';
import type { ResourceOutcome } from '../../../src/apply/outcome.js';
import { change, check, plan } from '../../helpers/plan.js';

const app = (name: string, dependsOn: string[] = []) => change({ address: `fastedge_app.${name}`, action: 'update', depends_on: dependsOn });
const applied = (address: string): ResourceOutcome => ({ address, action: 'update', status: 'applied', taskIds: [] });

/** The addresses a pass hands out, until it has none left. */
function pass(walk: ApplyWalk): string[] {
  walk.startPass();
  const taken: string[] = [];
  for (let c = walk.nextReady(); c !== undefined; c = walk.nextReady()) taken.push(c.key);
  return taken;
}

describe('the apply walk', () => {
  it('hands out the changes with nothing to wait for in declaration order, and a dependant once what it waits for is recorded', () => {
    const walk = createApplyWalk(plan([app('a'), app('b', ['fastedge_app.a']), app('c')]));
    expect(pass(walk)).toEqual(['fastedge_app.a', 'fastedge_app.c']);
    expect(walk.dependenciesState('fastedge_app.b')).toBe('pending');
    walk.record('fastedge_app.a', applied('fastedge_app.a'));
    expect(pass(walk)).toEqual(['fastedge_app.b']);
    expect(walk.dependenciesState('fastedge_app.b')).toBe('ok');
  });

  it('hands out a change behind a check that did not pass at once, naming the check, while its other dependency still runs', () => {
    const gate = check({ address: 'streaming_video_subtitles.ready', status: 'fail', message: 'missing ger' });
    const walk = createApplyWalk(plan([app('a'), app('b', ['fastedge_app.a', gate.address])], [gate]));
    expect(pass(walk)).toEqual(['fastedge_app.a', 'fastedge_app.b']);
    expect(walk.dependenciesState('fastedge_app.b')).toEqual({ rootCause: gate.address });
  });

  it('waits for a passing check until what the check depends on is done', () => {
    const gate = check({ address: 'streaming_video_subtitles.ready', status: 'pass', message: 'ok', depends_on: ['fastedge_app.a'] });
    const walk = createApplyWalk(plan([app('a'), app('b', [gate.address])], [gate]));
    expect(pass(walk)).toEqual(['fastedge_app.a']);
    walk.record('fastedge_app.a', applied('fastedge_app.a'));
    expect(pass(walk)).toEqual(['fastedge_app.b']);
  });

  it('leaves a change that became ready during a pass behind its position to the next pass, as a scan in declaration order would', () => {
    // b is declared before a, which it waits for: when a is recorded during the pass, the pass is past b.
    const walk = createApplyWalk(plan([app('b', ['fastedge_app.a']), app('a'), app('c')]));
    walk.startPass();
    expect(walk.nextReady()?.key).toBe('fastedge_app.a');
    walk.record('fastedge_app.a', applied('fastedge_app.a'));
    expect(walk.nextReady()?.key).toBe('fastedge_app.c');
    expect(walk.nextReady()).toBeUndefined();
    expect(pass(walk)).toEqual(['fastedge_app.b']);
  });

  it('lists the undecided dependants of a change, through checks, in topological order', () => {
    const gate = check({ address: 'streaming_video_subtitles.ready', status: 'pass', message: 'ok', depends_on: ['fastedge_app.a'] });
    const walk = createApplyWalk(plan([app('a'), app('b', [gate.address]), app('c', ['fastedge_app.b']), app('d', ['fastedge_app.a'])], [gate]));
    walk.record('fastedge_app.d', applied('fastedge_app.d'));
    expect(walk.undecidedDependants('fastedge_app.a').map((c) => c.key)).toEqual(['fastedge_app.b', 'fastedge_app.c']);
  });
});
