import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../../src/config/diagnostics.js';
import {
  FRAME_WIDTH,
  formatCounts,
  formatDiagnosticsJson,
  formatDiagnosticsText,
  MAX_MESSAGE_LENGTH,
  MAX_PRINTED_DIAGNOSTICS,
  toDiagnosticsJson,
} from '../../../src/render/diagnostics.js';

const text = 'version: 1\nresources:\n  web_vm:\n    type: cloud_instance\n    flavour_id: x\n';
const unknownField: Diagnostic = {
  severity: 'error',
  code: 'unknown-field',
  summary: 'unknown field "flavour_id" in cloud_instance; did you mean "flavor_id"?',
  detail: 'cloud_instance accepts: flavor_id.',
  address: 'cloud_instance.web_vm',
  range: { filename: 'stacks/prod.yaml', start: { line: 5, column: 5 }, end: { line: 5, column: 15 } },
};
const warning: Diagnostic = { severity: 'warning', code: 'empty-stack', summary: 'the stack declares no resources and no checks' };

describe('formatDiagnosticsText', () => {
  it('prints file:line:col, the address, a code frame under the spot, the detail and the counts', () => {
    const out = formatDiagnosticsText([unknownField], { files: new Map([['stacks/prod.yaml', text]]), color: false });
    expect(out).toBe(
      [
        'stacks/prod.yaml:5:5: error: unknown field "flavour_id" in cloud_instance; did you mean "flavor_id"?',
        '  on resource cloud_instance.web_vm',
        '',
        '    3 |   web_vm:',
        '    4 |     type: cloud_instance',
        '  > 5 |     flavour_id: x',
        '      |     ^^^^^^^^^^',
        '    6 |',
        '',
        '  cloud_instance accepts: flavor_id.',
        '',
        '1 error, 0 warnings',
        '',
      ].join('\n'),
    );
  });

  it('says "on check" for a check address and prints a diagnostic without a range as a bare line', () => {
    const check: Diagnostic = { ...warning, address: 'streaming_ai_tasks.failures' };
    const out = formatDiagnosticsText([check], { files: new Map(), color: false });
    expect(out).toBe('warning: the stack declares no resources and no checks\n  on check streaming_ai_tasks.failures\n\n0 errors, 1 warning\n');
  });

  it('uses no ANSI escapes without colour and some with it', () => {
    const files = new Map([['stacks/prod.yaml', text]]);
    expect(formatDiagnosticsText([unknownField], { files, color: false })).not.toMatch(/\u001b\[/);
    expect(formatDiagnosticsText([unknownField], { files, color: true })).toMatch(/\u001b\[/);
  });
});

/** Every C0 and C1 control character but newline and tab: what must never reach a terminal raw. */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

function at(line: number, column: number, endColumn = column + 1, filename = 'stack.yaml'): Diagnostic['range'] {
  return { filename, start: { line, column }, end: { line, column: endColumn } };
}

describe('formatDiagnosticsText on hostile input', () => {
  it('cuts a long line to a window around the spot, marked with …, with the marker under the spot', () => {
    const line = `    app_id: "${'a'.repeat(5_000)}BAD${'z'.repeat(5_000)}"`;
    const column = line.indexOf('BAD') + 1;
    const d: Diagnostic = { severity: 'error', code: 'invalid-value', summary: 'bad', range: at(2, column, column + 3) };
    const out = formatDiagnosticsText([d], { files: new Map([['stack.yaml', `x: 1\n${line}\n`]]), color: false });
    const frameLine = out.split('\n').find((l) => l.startsWith('  > 2 | '))!;
    const markerLine = out.split('\n')[out.split('\n').indexOf(frameLine) + 1]!;
    expect(frameLine.length).toBeLessThan(FRAME_WIDTH + 20);
    expect(frameLine).toMatch(/^ {2}> 2 \| …a+BADz+…$/);
    expect(markerLine.indexOf('^^^')).toBe(frameLine.indexOf('BAD'));
    expect(out.length).toBeLessThan(1_000);
  });

  it('leaves a line of ordinary width as it is', () => {
    const line = `    email: ${'e'.repeat(FRAME_WIDTH - 20)}`;
    const d: Diagnostic = { severity: 'error', code: 'invalid-value', summary: 'bad', range: at(1, 12) };
    expect(formatDiagnosticsText([d], { files: new Map([['stack.yaml', line]]), color: false })).toContain(`> 1 | ${line}\n`);
  });

  it('prints control characters of the stack as visible escapes: in the frame, summary, detail, address and filename', () => {
    const file = 'a: 1\nbad\u001b[2Jkey: "\u009b31m\u202e"\n';
    const d: Diagnostic = {
      severity: 'error',
      code: 'unknown-field',
      summary: 'unknown field "bad\u001b[2Jkey\u0007\nnext"',
      detail: 'Got "\u001b]0;title\u0007".\nSecond line.',
      address: 'fastedge_app.x\u001b[0m',
      range: at(2, 1, 13, 'st\u001back.yaml'),
    };
    const out = formatDiagnosticsText([d], { files: new Map([['st\u001back.yaml', file]]), color: false });
    expect(out).not.toMatch(RAW_CONTROL);
    expect(out).not.toContain('\u202e');
    expect(out).toContain('st\\x1back.yaml:2:1: error: unknown field "bad\\x1b[2Jkey\\x07\\x0anext"');
    expect(out).toContain('  on resource fastedge_app.x\\x1b[0m');
    expect(out).toContain('  > 2 | bad\\x1b[2Jkey: "\\x9b31m\\u202e"\n      | ^^^^^^^^^^^^^^^\n');
    expect(out).toContain('  Got "\\x1b]0;title\\x07".\n  Second line.');
  });

  it('shows no carriage returns of a CRLF file', () => {
    const d: Diagnostic = { severity: 'error', code: 'x', summary: 'bad', range: at(2, 1, 2) };
    const out = formatDiagnosticsText([d], { files: new Map([['stack.yaml', 'a: 1\r\nb: 2\r\nc: 3\r\n']]), color: false });
    expect(out).toContain('  > 2 | b: 2\n');
    expect(out).not.toContain('\\x0d');
  });

  it('frames a range of many lines by its first lines only', () => {
    const file = Array.from({ length: 1_000 }, (_, i) => `line${i + 1}: x`).join('\n');
    const d: Diagnostic = {
      severity: 'error',
      code: 'invalid-type',
      summary: 'bad',
      range: { filename: 'stack.yaml', start: { line: 3, column: 1 }, end: { line: 900, column: 3 } },
    };
    const out = formatDiagnosticsText([d], { files: new Map([['stack.yaml', file]]), color: false });
    expect(out).toContain('line7: x');
    expect(out).not.toContain('line9: x');
    expect(out).not.toContain('line900');
  });

  it(`prints the first ${MAX_PRINTED_DIAGNOSTICS} diagnostics, then how many more, and counts them all`, () => {
    const many: Diagnostic[] = Array.from({ length: 8_000 }, (_, i) => ({ severity: i < 7_990 ? 'error' : 'warning', code: 'x', summary: `problem ${i}` }));
    const out = formatDiagnosticsText(many, { files: new Map(), color: false });
    expect(out).toContain(`problem ${MAX_PRINTED_DIAGNOSTICS - 1}\n`);
    expect(out).not.toContain(`problem ${MAX_PRINTED_DIAGNOSTICS}\n`);
    expect(out).toContain('... and 7950 more (7940 errors, 10 warnings) not shown (edgeform validate --format json lists them all)');
    expect(out.trimEnd().endsWith('7990 errors, 10 warnings')).toBe(true);
  });

  it('says "N more errors" when only errors are left out', () => {
    const many: Diagnostic[] = Array.from({ length: MAX_PRINTED_DIAGNOSTICS + 1 }, () => ({ severity: 'error', code: 'x', summary: 'p' }));
    expect(formatDiagnosticsText(many, { files: new Map(), color: false })).toContain('... and 1 more error not shown');
  });

  it('cuts a summary or detail of megabytes to its first characters', () => {
    const huge = 'k'.repeat(1_000_000);
    const d: Diagnostic = { severity: 'error', code: 'unknown-field', summary: `unknown field "${huge}"`, detail: `Got "${huge}".` };
    const out = formatDiagnosticsText([d], { files: new Map(), color: false });
    expect(out.length).toBeLessThan(3 * MAX_MESSAGE_LENGTH);
    expect(out).toContain('k…');
  });

  it("reads each file's lines once however many diagnostics point into it", () => {
    const file = Array.from({ length: 20_000 }, (_, i) => `k${i}: v`).join('\n');
    let reads = 0;
    const files = new (class extends Map<string, string> {
      override get(key: string) {
        reads += 1;
        return super.get(key);
      }
    })([['stack.yaml', file]]);
    const many: Diagnostic[] = Array.from({ length: 20_000 }, (_, i) => ({ severity: 'error', code: 'x', summary: 'p', range: at(i + 1, 1) }));
    formatDiagnosticsText(many, { files, color: false });
    expect(reads).toBe(1);
  });
});

describe('diagnostics JSON', () => {
  it('has the versioned shape with every key present (null when absent)', () => {
    expect(toDiagnosticsJson([unknownField, warning])).toEqual({
      format_version: '1.0',
      valid: false,
      error_count: 1,
      warning_count: 1,
      diagnostics: [
        {
          severity: 'error',
          code: 'unknown-field',
          summary: unknownField.summary,
          detail: unknownField.detail,
          address: 'cloud_instance.web_vm',
          range: { filename: 'stacks/prod.yaml', start: { line: 5, column: 5 }, end: { line: 5, column: 15 } },
        },
        { severity: 'warning', code: 'empty-stack', summary: warning.summary, detail: null, address: null, range: null },
      ],
    });
  });

  it('is valid when there are only warnings, and serialises with a final newline', () => {
    const out = formatDiagnosticsJson([warning]);
    expect(out.endsWith('}\n')).toBe(true);
    expect(JSON.parse(out)).toMatchObject({ valid: true, error_count: 0, warning_count: 1 });
  });

  it('counts in words', () => {
    expect(formatCounts([unknownField, unknownField, warning])).toBe('2 errors, 1 warning');
  });

  it('writes C1 controls, line separators and bidi overrides as \\u escapes, keeping the value', () => {
    const d: Diagnostic = { severity: 'error', code: 'x', summary: 'a\u009b31m\u2028\u202eb\u001b' };
    const out = formatDiagnosticsJson([d]);
    expect(out).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u202e]/);
    expect(out).toContain('a\\u009b31m\\u2028\\u202eb\\u001b');
    expect(JSON.parse(out).diagnostics[0].summary).toBe(d.summary);
  });

  it('lists every diagnostic, and cuts messages of megabytes', () => {
    const many: Diagnostic[] = Array.from({ length: 2_000 }, () => ({ severity: 'error', code: 'x', summary: 's'.repeat(100_000) }));
    const json = toDiagnosticsJson(many);
    expect(json.diagnostics).toHaveLength(2_000);
    expect(json.diagnostics[0]!.summary.length).toBe(MAX_MESSAGE_LENGTH + 1);
  });
});
