import { describe, expect, it } from 'vitest';
import { commentMarker, renderPlanMarkdown } from '../../../src/render/plan-markdown.js';
import { renderPlanText } from '../../../src/render/plan-text.js';
import { change, plan } from '../../helpers/plan.js';

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
    expect(out).toMatch(/<details><summary>Full plan<\/summary>\n\n```text\n[\s\S]*\n```\n\n<\/details>\n$/);
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
    expect(out).toContain('````text\n');
    expect(out).toMatch(/\n````\n\n<\/details>\n$/);
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
