import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../../src/config/diagnostics.js';
import { formatCounts, formatDiagnosticsJson, formatDiagnosticsText, toDiagnosticsJson } from '../../../src/render/diagnostics.js';

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
});
