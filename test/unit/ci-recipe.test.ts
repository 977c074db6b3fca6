import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { validateAction, validateWorkflow, type ValidationState } from '@action-validator/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';
import { commentMarker } from '../../src/render/plan-markdown.js';
import { reportMarker } from '../../src/render/report-merge.js';

/**
 * The shipped CI recipes (examples/ci/) and the GitHub Action (action.yml): valid files, the three
 * jobs, the reviewed plan applied on merge, applies serialized per stack, and every script and
 * action input they name exists.
 */
const ROOT = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, ROOT), 'utf8');
const SCRIPTS = new Set(readdirSync(new URL('examples/ci/scripts/', ROOT)));

/** Every GitHub workflow and action file of the repository. */
const WORKFLOWS = [
  'examples/ci/github-actions.yml',
  'examples/ci/github-fleet-drift.yml',
  ...(existsSync(new URL('.github/workflows/', ROOT)) ? readdirSync(new URL('.github/workflows/', ROOT)).map((f) => `.github/workflows/${f}`) : []),
];
const ACTIONS = ['action.yml'];

// The validator warns on stdout that it does not check `paths` globs; keep the test output clean.
beforeAll(() => void vi.spyOn(console, 'warn').mockImplementation(() => {}));
afterAll(() => vi.restoreAllMocks());

/** The errors of a validation, flattened to `path: detail` lines so a failure says what is wrong. */
function problems(state: ValidationState): string[] {
  const walk = (errors: ValidationState['errors']): string[] =>
    errors.flatMap((e) => ['states' in e && e.states ? e.states.flatMap((s) => walk(s.errors)) : [`${'path' in e ? e.path : ''}: ${e.title} ${e.detail ?? ''}`.trim()]].flat());
  return walk(state.errors);
}

describe('GitHub workflow and action files', () => {
  it.each(WORKFLOWS)('%s is a valid workflow (action-validator)', (file) => {
    expect(problems(validateWorkflow(read(file)))).toEqual([]);
  });

  it.each(ACTIONS)('%s is a valid action (action-validator)', (file) => {
    expect(problems(validateAction(read(file)))).toEqual([]);
  });

  it('the validator finds a misspelt key in a workflow and a run step without a shell in an action', () => {
    expect(problems(validateWorkflow(read(WORKFLOWS[0]!).replace('runs-on:', 'runs_on:')))).not.toEqual([]);
    expect(problems(validateAction(read('action.yml').replace('shell: bash\n      run: bash', 'run: bash')))).not.toEqual([]);
  });
});

interface Step {
  id?: string;
  name?: string;
  if?: string;
  run?: string;
  uses?: string;
  with?: Record<string, string>;
  env?: Record<string, string>;
}
const workflow = parse(read('examples/ci/github-actions.yml')) as {
  jobs: Record<string, { if: string; concurrency?: { group: string; 'cancel-in-progress': boolean }; steps: Step[] }>;
};
const action = parse(read('action.yml')) as { inputs: Record<string, { default?: string }>; outputs: Record<string, { value: string }>; runs: { steps: Step[] } };
const steps = (job: string) => workflow.jobs[job]!.steps;
const runs = (job: string) =>
  steps(job)
    .map((s) => s.run ?? '')
    .join('\n');
const edgeformSteps = (job: string) => steps(job).filter((s) => s.uses?.startsWith('OWNER/edgeform@'));
const step = (job: string, id: string) => steps(job).find((s) => s.id === id)!;

describe('the GitHub Actions recipe', () => {
  it('plans with the edgeform action, comments whatever the exit code, and keeps the plan under the head commit', () => {
    expect(step('plan', 'plan').with).toMatchObject({ command: 'plan', format: 'markdown', 'plan-file': 'plan.json', 'output-file': 'plan.md' });
    const comment = steps('plan').find((s) => s.run?.includes('upsert-comment.mjs'))!;
    expect(comment.if).toMatch(/^always\(\)/);
    expect(comment.run).toContain('--body-file plan.md');
    expect(comment.env?.PLAN_EXIT).toBe('${{ steps.plan.outputs.exit-code }}');
    expect(step('plan', 'artifact').run).toBe('node "$EDGEFORM_CI_SCRIPTS/plan-artifact.mjs" --stack "$STACK"');
    const upload = steps('plan').find((s) => s.uses?.startsWith('actions/upload-artifact'))!;
    expect(upload.with).toMatchObject({ name: '${{ steps.artifact.outputs.name }}', path: 'plan.json' });
    // A failed plan (exit 1) fails the action step: the upload, which has no always(), does not run.
    expect(upload.if).toBeUndefined();
  });

  it('applies the downloaded reviewed plan on merge and never plans anew', () => {
    expect(runs('apply')).not.toMatch(/edgeform plan/);
    expect(edgeformSteps('apply').map((s) => s.with?.command)).toEqual([undefined, 'apply']);
    expect(step('apply', 'reviewed').run).toBe('node "$EDGEFORM_CI_SCRIPTS/reviewed-plan.mjs" --stack "$STACK"');
    const download = steps('apply').find((s) => s.uses?.startsWith('actions/download-artifact'))!;
    expect(download.with).toMatchObject({ name: '${{ steps.reviewed.outputs.artifact }}', 'run-id': '${{ steps.reviewed.outputs.run-id }}', path: 'reviewed' });
    expect(step('apply', 'apply').with).toMatchObject({ command: 'apply', 'plan-file': 'reviewed/plan.json', stack: '${{ env.STACK }}' });
  });

  it('serializes the applies of a stack and never cancels a running one', () => {
    expect(workflow.jobs.apply!.concurrency).toEqual({ group: 'edgeform-apply-stacks/prod.yaml', 'cancel-in-progress': false });
    expect(workflow.jobs.drift!.concurrency?.group).not.toBe(workflow.jobs.apply!.concurrency?.group);
  });

  it('keeps one drift issue from the drift exit code', () => {
    expect(step('drift', 'drift').with).toMatchObject({ command: 'drift', format: 'markdown', 'output-file': 'drift.md' });
    const issue = steps('drift').find((s) => s.run?.includes('drift-issue.mjs'))!;
    expect(issue.env?.DRIFT_EXIT).toBe('${{ steps.drift.outputs.exit-code }}');
  });

  it('gives the API key only to the steps that run edgeform against the platform', () => {
    for (const job of Object.keys(workflow.jobs)) {
      for (const s of steps(job)) {
        if (s.env?.EDGEFORM_API_KEY) expect(s.with?.command, `${job}: ${s.name ?? s.uses}`).toMatch(/^(plan|apply|drift)$/);
      }
    }
  });

  it('passes only inputs the action declares, and runs only scripts that exist', () => {
    for (const job of Object.keys(workflow.jobs)) {
      for (const s of edgeformSteps(job)) expect(Object.keys(s.with ?? {}).filter((k) => !(k in action.inputs))).toEqual([]);
      for (const [, script] of runs(job).matchAll(/\$EDGEFORM_CI_SCRIPTS\/([\w.-]+)/g)) expect(SCRIPTS).toContain(script);
    }
  });
});

describe('the GitHub Action (action.yml)', () => {
  it('declares the inputs command, stack, format, plan-file, args and the outputs exit-code and summary', () => {
    expect(Object.keys(action.inputs)).toEqual(expect.arrayContaining(['command', 'stack', 'format', 'plan-file', 'args', 'output-file']));
    expect(action.outputs['exit-code']!.value).toBe('${{ steps.run.outputs.exit-code }}');
    expect(action.outputs.summary!.value).toBe('${{ steps.run.outputs.summary }}');
  });

  it('installs from its own checkout and passes inputs through the environment, never into a shell line', () => {
    const [install, run] = action.runs.steps;
    expect(install!.run).toBe('bash "$GITHUB_ACTION_PATH/action/install.sh"');
    expect(run!.run).toBe('node "$GITHUB_ACTION_PATH/action/run.mjs"');
    for (const s of action.runs.steps) expect(s.run).not.toContain('${{');
    expect(Object.values(run!.env ?? {})).toEqual(Object.keys(action.inputs).map((name) => `\${{ inputs.${name} }}`));
  });
});

/**
 * The subset of GitLab CI's `.gitlab-ci.yml` the recipe uses (not GitLab's full schema): strict,
 * so a misspelt or unsupported key fails here instead of in the user's first pipeline.
 */
const GitLabRule = z.strictObject({ if: z.string().min(1), changes: z.array(z.string()).optional(), when: z.enum(['on_success', 'never', 'always', 'manual']).optional() });
const GitLabJob = z.strictObject({
  stage: z.string(),
  rules: z.array(GitLabRule).min(1),
  script: z.array(z.string().min(1)).min(1),
  image: z.string().optional(),
  before_script: z.array(z.string()).optional(),
  parallel: z.number().int().min(2).max(200).optional(),
  resource_group: z
    .string()
    .regex(/^[\w\-/${}. ]+$/)
    .optional(),
  artifacts: z
    .strictObject({
      name: z.string().optional(),
      paths: z.array(z.string()).min(1),
      expire_in: z.string().optional(),
      when: z.enum(['on_success', 'on_failure', 'always']).optional(),
    })
    .optional(),
});
const GitLabPipeline = z
  .object({
    stages: z.array(z.string()).min(1),
    variables: z.record(z.string(), z.string()).optional(),
    default: z
      .strictObject({
        image: z.string().optional(),
        before_script: z.array(z.string()).optional(),
        cache: z.strictObject({ key: z.union([z.string(), z.strictObject({ files: z.array(z.string()) })]), paths: z.array(z.string()) }).optional(),
      })
      .optional(),
  })
  .catchall(GitLabJob)
  .superRefine((pipeline, ctx) => {
    for (const [name, job] of Object.entries(pipeline)) {
      if (['stages', 'variables', 'default'].includes(name)) continue;
      if (!pipeline.stages.includes((job as z.infer<typeof GitLabJob>).stage)) ctx.addIssue({ code: 'custom', path: [name, 'stage'], message: 'not one of stages' });
    }
  });

describe('the GitLab CI recipe', () => {
  const text = read('examples/ci/gitlab-ci.yml');
  const pipeline = GitLabPipeline.parse(parse(text)) as z.infer<typeof GitLabPipeline> & Record<string, z.infer<typeof GitLabJob>>;
  const script = (job: string) => pipeline[job]!.script.join('\n');

  it('is, in the subset of keys it uses, a valid .gitlab-ci.yml, and the check finds a misspelt key', () => {
    expect(Object.keys(pipeline).filter((k) => !['stages', 'variables', 'default'].includes(k))).toEqual(['edgeform-plan', 'edgeform-apply', 'edgeform-drift']);
    expect(GitLabPipeline.safeParse(parse(text.replace('resource_group:', 'resource-group:'))).success).toBe(false);
    expect(GitLabPipeline.safeParse(parse(text.replace('stage: drift', 'stage: drfit'))).success).toBe(false);
  });

  it('plans on merge requests, posts the note whatever the exit code, and keeps plan.json', () => {
    expect(pipeline['edgeform-plan']!.rules[0]!.if).toBe('$CI_PIPELINE_SOURCE == "merge_request_event"');
    expect(script('edgeform-plan')).toMatch(
      /code=0; npx edgeform plan "\$STACK" --format markdown --detailed-exitcode --out plan\.json > plan\.md \|\| code=\$\?\n.*upsert-comment\.mjs.*--exit-code "\$code"\ntest "\$code" -ne 1/,
    );
    expect(pipeline['edgeform-plan']!.artifacts?.paths).toContain('plan.json');
  });

  it('applies the downloaded reviewed plan on merge to the default branch, one apply per stack at a time', () => {
    expect(pipeline['edgeform-apply']!.rules[0]!.if).toBe('$CI_PIPELINE_SOURCE == "push" && $CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH');
    expect(script('edgeform-apply')).not.toMatch(/edgeform plan/);
    expect(script('edgeform-apply')).toMatch(/reviewed-plan\.mjs" --stack "\$STACK" --out reviewed\/plan\.json\nnpx edgeform apply reviewed\/plan\.json --stack "\$STACK"/);
    expect(pipeline['edgeform-apply']!.resource_group).toBe('edgeform-stacks/prod.yaml');
  });

  it('keeps one drift issue from the drift exit code on a schedule', () => {
    expect(pipeline['edgeform-drift']!.rules[0]!.if).toBe('$CI_PIPELINE_SOURCE == "schedule"');
    expect(script('edgeform-drift')).toMatch(/drift-issue\.mjs" --stack "\$STACK" --body-file drift\.md --exit-code "\$code"/);
  });

  it('runs only scripts that exist, from the installed package', () => {
    expect(pipeline.variables?.SCRIPTS).toBe('node_modules/edgeform/examples/ci/scripts');
    for (const job of ['edgeform-plan', 'edgeform-apply', 'edgeform-drift']) for (const [, name] of script(job).matchAll(/\$SCRIPTS\/([\w.-]+)/g)) expect(SCRIPTS).toContain(name);
  });
});

describe('the fleet drift recipes', () => {
  const fleet = parse(read('examples/ci/github-fleet-drift.yml')) as {
    env: Record<string, string>;
    jobs: Record<
      string,
      { if?: string; needs?: string | string[]; permissions: Record<string, string>; strategy?: { matrix: { shard: number[] }; 'fail-fast': boolean }; steps: Step[] }
    >;
  };
  const fleetRuns = (job: string) => fleet.jobs[job]!.steps.flatMap((s) => (s.run === undefined ? [] : [s.run.trimEnd()])).join('\n');
  const gitlabText = read('examples/ci/gitlab-fleet-drift.yml');
  const gitlab = GitLabPipeline.parse(parse(gitlabText)) as z.infer<typeof GitLabPipeline> & Record<string, z.infer<typeof GitLabJob>>;
  const gitlabScript = (job: string) => gitlab[job]!.script.join('\n');

  it('GitHub: lists the stacks, drifts a static matrix of SHARDS shards, then merges into one report and one issue', () => {
    expect(Object.keys(fleet.jobs)).toEqual(['list', 'drift', 'report']);
    expect(fleetRuns('list')).toContain('edgeform stacks "$ROOT" --format json > results/stacks.json || test -s results/stacks.json');
    const shards = fleet.jobs.drift!.strategy!.matrix.shard;
    expect(shards).toEqual(Array.from({ length: Number(fleet.env.SHARDS) }, (_, i) => i + 1));
    expect(fleet.jobs.drift!.strategy!['fail-fast']).toBe(false);
    expect(fleetRuns('drift')).toBe('node "$EDGEFORM_CI_SCRIPTS/fleet-sweep.mjs" --command drift --root "$ROOT" --shard "$SHARD/$SHARDS" --out results');
    expect(fleet.jobs.report!.needs).toEqual(['list', 'drift']);
    expect(fleet.jobs.report!.if).toMatch(/^always\(\)/);
    expect(fleetRuns('report')).toMatch(/code=0; edgeform report merge results --format markdown > report\.md \|\| code=\$\?/);
    expect(fleetRuns('report')).toContain('fleet-drift-issue.mjs" --report-file report.json --body-file report.md');
  });

  it('GitHub: gives the key only to the shards, the issues permission only to the report, and runs only scripts that exist', () => {
    for (const [name, job] of Object.entries(fleet.jobs)) {
      for (const s of job.steps) if (s.env?.EDGEFORM_API_KEY) expect(s.run, name).toContain('fleet-sweep.mjs');
      expect(job.permissions.issues === 'write', name).toBe(name === 'report');
      for (const [, script] of fleetRuns(name).matchAll(/\$EDGEFORM_CI_SCRIPTS\/([\w.-]+)/g)) expect(SCRIPTS).toContain(script);
      for (const s of job.steps.filter((x) => x.uses?.startsWith('OWNER/edgeform@'))) expect(Object.keys(s.with ?? {}).filter((k) => !(k in action.inputs))).toEqual([]);
    }
  });

  it('GitLab: the same three jobs, the shards as parallel jobs, the report whatever the shards did', () => {
    expect(Object.keys(gitlab).filter((k) => !['stages', 'variables', 'default'].includes(k))).toEqual(['edgeform-fleet-list', 'edgeform-fleet-drift', 'edgeform-fleet-report']);
    expect(gitlab['edgeform-fleet-drift']!.parallel).toBeGreaterThan(1);
    expect(gitlabScript('edgeform-fleet-drift')).toContain('fleet-sweep.mjs" --command drift --root "$ROOT" --shard "$CI_NODE_INDEX/$CI_NODE_TOTAL" --out results');
    expect(gitlab['edgeform-fleet-report']!.rules[0]).toMatchObject({ if: '$CI_PIPELINE_SOURCE == "schedule"', when: 'always' });
    expect(gitlabScript('edgeform-fleet-report')).toMatch(/fleet-drift-issue\.mjs" --report-file report\.json --body-file report\.md\ntest "\$code" -ne 1$/);
    for (const job of ['edgeform-fleet-list', 'edgeform-fleet-drift', 'edgeform-fleet-report'])
      for (const [, name] of gitlabScript(job).matchAll(/\$SCRIPTS\/([\w.-]+)/g)) expect(SCRIPTS).toContain(name);
    expect(GitLabPipeline.safeParse(parse(gitlabText.replace(/^ {2}parallel: 4$/m, '  parallel: 1'))).success).toBe(false);
  });
});

describe('the CI scripts', () => {
  it("look for exactly the marker edgeform's Markdown starts with", async () => {
    const forge = (await import(new URL('examples/ci/scripts/forge.mjs', ROOT).href)) as { markerFor(kind: string, stack: string): string; reportMarkerFor(name: string): string };
    for (const stack of ['stacks/prod.yaml', 'a--b/c---d.yaml', 'stacks dir/x.yaml'])
      for (const kind of ['plan', 'drift'] as const) expect(forge.markerFor(kind, stack)).toBe(commentMarker(kind, stack));
    for (const name of ['fleet', 'prod--eu', 'a/b']) expect(forge.reportMarkerFor(name)).toBe(reportMarker(name));
  });
});
