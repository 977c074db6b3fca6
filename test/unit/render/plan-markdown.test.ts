import { describe, expect, it } from 'vitest';
import { commentMarker, renderPlanMarkdown, toDiffLines } from '../../../src/render/plan-markdown.js';
import { renderPlanText } from '../../../src/render/plan-text.js';
import { change, check, plan } from '../../helpers/plan.js';

const many = (n: number) =>
  Array.from({ length: n }, (_, i) => change({ address: `cloud_instance.vm_${i}`, action: 'update', changes: [{ path: ['flavor_id'], op: 'update', before: 'a', after: 'b' }] }));

function md(p: ReturnType<typeof plan>, limit?: number) {
  return renderPlanMarkdown(p, renderPlanText(p), { stackLabel: 'stacks/prod.yaml', limit });
}

describe('renderPlanMarkdown', () => {
  it('starts with the sticky-comment marker and a one-line summary', () => {
    const out = md(plan(many(2)));
    expect(out.split('\n')[0]).toBe('<!-- edgeform:plan stack=stacks/prod.yaml -->');
    expect(out).toContain('**Plan:** 0 to add, 2 to change, 0 to destroy.');
    expect(out).toContain('| `~` update | `cloud_instance.vm_0` |');
    expect(out).toMatch(/<details><summary>Full plan<\/summary>\n\n```diff\n[\s\S]*\n```\n\n<\/details>\n$/);
  });

  it('warns when anything will be destroyed', () => {
    const out = md(plan([change({ address: 'fastedge_app.legacy', action: 'delete', before: { app_id: 1 } })]));
    expect(out).toContain('> [!WARNING]\n> This plan **destroys 1 resource**.');
  });

  it('has no banner and says no changes when nothing differs', () => {
    const out = md(plan([]));
    expect(out).toContain('**No changes.**');
    expect(out).not.toContain('[!WARNING]');
  });

  it('stays under the limit with a truncation note, keeping the fence and details closed', () => {
    const p = plan(many(3000));
    const out = md(p, 20_000);
    expect(out.length).toBeLessThanOrEqual(20_000);
    expect(out).toContain('more not shown; see the full plan');
    expect(out).toMatch(/… truncated: \d+ more lines\./);
    expect(out).toMatch(/\n```\n\n<\/details>\n$/);
    expect(out.match(/```/g)!.length).toBe(2);
  });

  it('stays under the default limit for a very large plan', () => {
    const out = md(plan(many(20_000)));
    expect(out.length).toBeLessThanOrEqual(65_000);
    expect(out).toMatch(/<\/details>\n$/);
  });

  it('uses a longer fence when the plan text contains backticks', () => {
    const p = plan([change({ address: 'cloud_instance.x', action: 'update', changes: [{ path: ['flavor_id'], op: 'update', before: '```', after: 'b' }] })]);
    const out = md(p);
    expect(out).toContain('````diff\n');
    expect(out).toMatch(/\n````\n\n<\/details>\n$/);
  });
});

describe('renderPlanMarkdown: a comment a reviewer can act on', () => {
  const failing = check({ address: 'streaming_video_subtitles.subs', status: 'fail', message: 'missing languages: ger' });
  const passing = check({ address: 'streaming_ai_tasks.none_failed', status: 'pass', message: '0 tasks match' });
  const opened = (out: string) => out.slice(0, out.indexOf('<details>'));

  it('states the commit and the time it was planned, and leaves the commit out when unknown', () => {
    const p = plan(many(1));
    const withCommit = renderPlanMarkdown(p, renderPlanText(p), { stackLabel: 's.yaml', commit: '0123456789abcdef0123456789abcdef01234567' });
    expect(opened(withCommit)).toContain('_Planned commit `0123456789ab` at `2026-01-01T00:00:00.000Z`._');
    expect(opened(md(p))).toContain('_Planned at `2026-01-01T00:00:00.000Z`._');
    expect(md(p)).not.toContain('commit');
  });

  it('shows the full plan in a diff fence, with each action symbol in the first column', () => {
    const p = plan([
      change({
        address: 'cloud_floating_ip.ip',
        action: 'update',
        changes: [
          { path: ['tags', 'env'], op: 'update', before: 'a', after: 'b' },
          { path: ['tags', 'x'], op: 'remove', before: '1' },
          { path: ['tags', 'y'], op: 'add', after: '2' },
        ],
      }),
    ]);
    const out = md(p);
    const inside = out.slice(out.indexOf('```diff\n'), out.lastIndexOf('```'));
    expect(inside).toMatch(/^!\s+~? ?tags:$/m);
    expect(inside).toMatch(/^!\s+"env" = "a" -> "b"$/m);
    expect(inside).toMatch(/^-\s+"x"\s+= "1"$/m);
    expect(inside).toMatch(/^\+\s+"y"\s+= "2"$/m);
    expect(inside).toMatch(/^ {3}# cloud_floating_ip.ip will be updated in-place$/m);
  });

  it('shows errors, warnings and failing checks outside the collapsed part, so a failed plan is still a good comment', () => {
    const p = plan(many(1), [failing, passing], {
      diagnostics: [
        {
          severity: 'error',
          code: 'plan-error',
          summary: 'reading cloud_instance.vm_9 failed: 403 forbidden',
          address: 'cloud_instance.vm_9',
          range: { filename: 's.yaml', start: { line: 7, column: 3 }, end: { line: 7, column: 9 } },
        },
        { severity: 'warning', code: 'targeting-in-effect', summary: 'Resource targeting is in effect', detail: 'not for routine use' },
      ],
    });
    const head = opened(md(p));
    expect(head).toContain('**Plan failed** with 1 error');
    expect(head).toContain('**Errors**\n\n- `s.yaml:7:3` `reading cloud_instance.vm_9 failed: 403 forbidden` (`cloud_instance.vm_9`)');
    expect(head).toContain('**Warnings**\n\n- `Resource targeting is in effect`: `not for routine use`');
    expect(head).toContain('**Failing checks (1 of 2)**\n\n- `streaming_video_subtitles.subs`: FAILED: `missing languages: ger`');
    expect(md(p)).toContain('<details>');
  });

  it('lists at most 20 errors in the open and says how many more the full plan has', () => {
    const diagnostics = Array.from({ length: 25 }, (_, i) => ({ severity: 'error' as const, code: 'plan-error', summary: `error ${i}` }));
    const head = opened(md(plan([], [], { diagnostics })));
    expect(head).toContain('- `error 19`');
    expect(head).not.toContain('- `error 20`');
    expect(head).toContain('- … and 5 more in the full plan below');
  });

  it('does not say "No changes." when checks fail', () => {
    const out = md(plan([], [failing, passing]));
    expect(out).toContain('**No changes to resources**; 1 of 2 checks failing.');
    expect(out).not.toContain('**No changes.**');
    expect(md(plan([], [passing]))).toContain('**No changes.** The platform matches the stack.');
  });
});

describe('commentMarker', () => {
  it('cannot be ended early by a -- in the stack label, for plan and drift alike', () => {
    for (const kind of ['plan', 'drift'] as const) {
      const marker = commentMarker(kind, 'stacks/a--b.yaml');
      expect(marker.startsWith(`<!-- edgeform:${kind} stack=stacks/a`)).toBe(true);
      expect(marker.slice(4, -3)).not.toContain('--');
    }
  });
});

describe('the diff fence of the Markdown plan', () => {
  it('moves each action symbol to the first column; a replacement is highlighted and keeps its -/+', () => {
    expect(toDiffLines(['   + app_id: (known after apply)', '  -/+ fastedge_app.edge', '   ~ name: "a" -> "b"', '   - fastedge_app.old', '  # note', ''])).toEqual([
      '+    app_id: (known after apply)',
      '!  -/+ fastedge_app.edge',
      '!    name: "a" -> "b"',
      '-    fastedge_app.old',
      '   # note',
      '',
    ]);
  });
});
