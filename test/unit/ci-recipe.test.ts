import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

/** The shipped GitHub workflow must apply what was reviewed and always tell the reviewers. */
describe('the GitHub Actions recipe', () => {
  const workflow = parse(readFileSync(new URL('../../examples/ci/github-actions.yml', import.meta.url), 'utf8')) as {
    jobs: Record<string, { steps: Array<{ name?: string; if?: string; run?: string; uses?: string; with?: Record<string, unknown> }> }>;
  };
  const runs = (job: string) => workflow.jobs[job]!.steps.map((s) => s.run ?? '').join('\n');

  it('saves the reviewed plan on pull requests, under the head commit', () => {
    expect(runs('plan')).toMatch(/edgeform plan "\$STACK" .*--out plan\.json/);
    const upload = workflow.jobs.plan!.steps.find((s) => s.uses?.startsWith('actions/upload-artifact'));
    expect(upload?.with?.name).toBe('edgeform-plan-${{ github.event.pull_request.head.sha }}');
  });

  it('posts the plan comment even when plan fails', () => {
    const comment = workflow.jobs.plan!.steps.find((s) => s.name === 'sticky comment');
    expect(comment?.if).toBe('always()');
    // The plan step itself never fails before the comment; a later step fails the job on exit 1.
    expect(runs('plan')).toContain('exit 0');
    expect(workflow.jobs.plan!.steps.at(-1)?.if).toBe("steps.plan.outputs.exit-code == '1'");
  });

  it('applies the downloaded reviewed plan on merge and never plans anew', () => {
    const apply = runs('apply');
    expect(apply).not.toMatch(/edgeform plan/);
    expect(apply).toContain('gh run download "$run" --name "edgeform-plan-$head"');
    expect(apply).toContain('npx edgeform apply reviewed/plan.json');
  });
});
