import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeTerminalOutput, formatMessage, formatName, formatValue, markdownCode } from '../../../src/render/values.js';
import { anyString } from '../../helpers/code-points.js';

/** Every character a terminal may act on: C0, DEL, C1, line/paragraph separators, bidi controls. */
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

const OSC_TITLE = '\u001b]0;owned\u0007';
const CLEAR = '\u001b[2J';
const CSI_C1 = '\u009b31m';
const RLO = '\u202e';

describe('formatValue', () => {
  it('escapes ESC, OSC, C1 and bidi controls and stays JSON that parses to the same value', () => {
    const value = `a${OSC_TITLE}${CLEAR}${CSI_C1}${RLO}\u2066b\u007f\nz`;
    const shown = formatValue(value);
    expect(shown).toBe('"a\\u001b]0;owned\\u0007\\u001b[2J\\u009b31m\\u202e\\u2066b\\u007f\\nz"');
    expect(JSON.parse(shown)).toBe(value);
    expect(formatValue({ [`k${RLO}`]: [CSI_C1] })).toBe('{"k\\u202e":["\\u009b31m"]}');
  });

  it('never writes a raw control character, for any value (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), anyString(), (value, s) => {
        for (const v of [value, s]) {
          const shown = formatValue(v);
          expect(shown).not.toMatch(RAW_CONTROL);
          expect(JSON.parse(shown)).toEqual(JSON.parse(JSON.stringify(v)));
        }
      }),
    );
  });
});

describe('formatName and formatMessage', () => {
  it('formatName escapes everything, line feeds included, so a tag key stays on its line', () => {
    expect(formatName(`tags.evil${OSC_TITLE}\nnext${RLO}`)).toBe('tags.evil\\u001b]0;owned\\u0007\\nnext\\u202e');
    fc.assert(
      fc.property(anyString(), (s) => {
        expect(formatName(s)).not.toMatch(RAW_CONTROL);
      }),
    );
  });

  it("formatMessage keeps edgeform's own line feeds and escapes every other control", () => {
    expect(formatMessage(`planned:\n  observed: x${CLEAR}\r${CSI_C1}`)).toBe('planned:\n  observed: x\\u001b[2J\\r\\u009b31m');
    fc.assert(
      fc.property(anyString(), (s) => {
        expect(formatMessage(s).replace(/\n/g, '')).not.toMatch(RAW_CONTROL);
      }),
    );
  });
});

describe('markdownCode', () => {
  it('makes untrusted text a code span that HTML, links, mentions and backticks cannot leave', () => {
    expect(markdownCode('<img src=x onerror=alert(1)> @org/team [x](http://evil)')).toBe('`<img src=x onerror=alert(1)> @org/team [x](http://evil)`');
    expect(markdownCode('a`b``c')).toBe('```a`b``c```');
    expect(markdownCode('`edge`')).toBe('`` `edge` ``');
    expect(markdownCode(`x\n\`\`\`\n</details>${OSC_TITLE}`)).toBe('````x\\n```\\n</details>\\u001b]0;owned\\u0007````');
  });

  it('in a table cell escapes every pipe so the row is never split, whatever backslashes precede it', () => {
    expect(markdownCode('a|b', { inTable: true })).toBe('`a\\|b`');
    expect(markdownCode('a\\|b', { inTable: true })).toBe('`a\\|b`');
    expect(markdownCode('a\\\\|b', { inTable: true })).toBe('`a\\\\\\|b`');
  });

  it('always closes its own fence and, in a table, leaves no pipe a row splitter would take (property)', () => {
    fc.assert(
      fc.property(anyString(), fc.boolean(), (s, inTable) => {
        const span = markdownCode(s, { inTable });
        const fence = /^`+/.exec(span)![0];
        const body = span.slice(fence.length, span.length - fence.length);
        expect(span.endsWith(fence)).toBe(true);
        expect(body).not.toMatch(new RegExp(`(^|[^\`])${fence}([^\`]|$)`));
        expect(span).not.toMatch(RAW_CONTROL);
        if (inTable) expect(span).not.toMatch(/(^|[^\\])(\\\\)*\|/);
      }),
    );
  });
});

describe('escapeTerminalOutput', () => {
  it('without colour escapes every ESC; with colour lets SGR colour sequences through and nothing else', () => {
    const text = `\u001b[31mred\u001b[39m ${OSC_TITLE}${CLEAR}\tok\n${CSI_C1}${RLO}`;
    expect(escapeTerminalOutput(text, { color: false })).toBe('\\u001b[31mred\\u001b[39m \\u001b]0;owned\\u0007\\u001b[2J\tok\n\\u009b31m\\u202e');
    expect(escapeTerminalOutput(text, { color: true })).toBe('\u001b[31mred\u001b[39m \\u001b]0;owned\\u0007\\u001b[2J\tok\n\\u009b31m\\u202e');
  });

  it('keeps JSON output valid and equal', () => {
    fc.assert(
      fc.property(fc.jsonValue(), anyString(), (value, s) => {
        const json = JSON.stringify({ value, s }, null, 2);
        const out = escapeTerminalOutput(json, { color: false });
        expect(out.replace(/[\n\t]/g, '')).not.toMatch(RAW_CONTROL);
        expect(JSON.parse(out)).toEqual(JSON.parse(json));
      }),
    );
  });
});
