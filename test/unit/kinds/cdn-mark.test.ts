import { describe, expect, it } from 'vitest';
import { splitMark, stackMark, withMark } from '../../../src/kinds/cdn-resource/mark.js';

describe('the stack mark of a CDN resource description', () => {
  it('is appended after the text, alone when there is none, and not at all without a stack', () => {
    expect(withMark('Static assets', 'prod')).toBe('Static assets [edgeform:prod]');
    expect(withMark('', 'prod')).toBe(stackMark('prod'));
    expect(withMark('Static assets', null)).toBe('Static assets');
  });

  it('splits back into the text and the stack, so a plan compares the text alone', () => {
    expect(splitMark(withMark('Static assets', 'prod'))).toEqual({ text: 'Static assets', stack: 'prod' });
    expect(splitMark('[edgeform:prod]')).toEqual({ text: '', stack: 'prod' });
    expect(splitMark('no mark here')).toEqual({ text: 'no mark here', stack: null });
    expect(splitMark(null)).toEqual({ text: '', stack: null });
    // Edited by hand: no longer a mark at the end, so the resource is disowned.
    expect(splitMark('[edgeform:prod] moved')).toEqual({ text: '[edgeform:prod] moved', stack: null });
    expect(splitMark('Site [edgeform: prod]')).toEqual({ text: 'Site [edgeform: prod]', stack: null });
    // Renamed by hand, or by a stack rename: another stack's mark, which prune of "prod" ignores.
    expect(splitMark('Site [edgeform:prod-old]')).toEqual({ text: 'Site', stack: 'prod-old' });
  });

  it('carries an owner mark after the stack when a key made one, and reads it back apart', () => {
    const mark = 'v1.Ab-_0123456789abcdefgh';
    expect(withMark('Static assets', 'prod', mark)).toBe(`Static assets [edgeform:prod:${mark}]`);
    expect(splitMark(withMark('Static assets', 'prod', mark))).toEqual({ text: 'Static assets', stack: 'prod', mark });
    expect(splitMark(`[edgeform:prod:${mark}]`)).toEqual({ text: '', stack: 'prod', mark });
    // Not a mark of this shape: no stack mark at all (the resource is disowned, as by any edit).
    expect(splitMark('Site [edgeform:prod:not a mark]')).toEqual({ text: 'Site [edgeform:prod:not a mark]', stack: null });
  });
});
