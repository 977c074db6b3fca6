import { distance } from 'fastest-levenshtein';
import type { Diagnostic } from '../config/diagnostics.js';
import type { Stack } from '../config/types.js';
import { buildGraph } from '../model/graph.js';
import type { Plan } from './types.js';

/** The diagnostic code of the warning every `--target` run carries. */
export const TARGETING_WARNING_CODE = 'targeting-in-effect';

/** The diagnostic code of the warning that ends an apply of a targeted plan. */
export const TARGETED_APPLY_WARNING_CODE = 'targeted-apply';

/**
 * The addresses a `--target` run covers: each target and everything it depends on,
 * transitively (as Terraform does). No targets means every block. Unknown targets are
 * errors with a did-you-mean, reported before anything is read. A run with targets (and none
 * unknown) carries Terraform's warning as a diagnostic (code {@link TARGETING_WARNING_CODE}),
 * naming the checks the selection leaves out, so every view (text, Markdown, JSON) shows it.
 */
export function selectTargets(stack: Stack, targets: readonly string[]): { selected: Set<string>; diagnostics: Diagnostic[] } {
  const blocks = [...stack.resources, ...stack.checks];
  const all = blocks.map((b) => b.address);
  if (targets.length === 0) return { selected: new Set(all), diagnostics: [] };
  const graph = buildGraph(blocks);
  const diagnostics: Diagnostic[] = [];
  const selected = new Set<string>();
  for (const target of targets) {
    if (!graph.dependencies.has(target)) {
      const suggestion = all.map((a) => ({ a, d: distance(a, target) })).sort((x, y) => x.d - y.d)[0];
      diagnostics.push({
        severity: 'error',
        code: 'unknown-target',
        summary: `--target ${target}: no resource or check with this address in the stack`,
        detail: suggestion && suggestion.d <= Math.max(3, target.length / 3) ? `Did you mean "${suggestion.a}"?` : undefined,
        address: target,
      });
      continue;
    }
    const queue = [target];
    while (queue.length > 0) {
      const node = queue.pop()!;
      if (selected.has(node)) continue;
      selected.add(node);
      queue.push(...(graph.dependencies.get(node) ?? []));
    }
  }
  if (diagnostics.length === 0) diagnostics.push(targetingWarning(stack.checks.map((c) => c.address).filter((a) => !selected.has(a))));
  return { selected, diagnostics };
}

/**
 * Terraform's warning for a targeted plan: the result may be incomplete and targeting is not
 * for routine use; the checks outside the selection were not evaluated, so a passing plan does
 * not mean they pass.
 */
function targetingWarning(skippedChecks: readonly string[]): Diagnostic {
  const skipped =
    skippedChecks.length === 0
      ? 'Every check of the stack is in the selection.'
      : `${skippedChecks.length} ${skippedChecks.length === 1 ? 'check was' : 'checks were'} not selected and skipped: ${skippedChecks.join(', ')}.`;
  return {
    severity: 'warning',
    code: TARGETING_WARNING_CODE,
    summary: 'Resource targeting is in effect',
    detail:
      'You are planning with --target, so the plan may not show every change the stack asks for. ' +
      '--target is not for routine use: it is for exceptional situations such as recovering from errors or mistakes. ' +
      skipped,
  };
}

/** Whether a plan was made with --target (it carries the targeting warning; see selectTargets). */
export function isTargetedPlan(plan: Pick<Plan, 'diagnostics'>): boolean {
  return plan.diagnostics.some((d) => d.code === TARGETING_WARNING_CODE);
}

/**
 * Terraform's warning at the end of an apply of a targeted plan: what was applied may not be all
 * the stack asks for, and a plan of the whole stack (of stackPath) says whether more is pending.
 */
export function targetedApplyWarning(stackPath: string): Diagnostic {
  return {
    severity: 'warning',
    code: TARGETED_APPLY_WARNING_CODE,
    summary: 'Applied changes may be incomplete',
    detail:
      `The plan was made with --target, so some changes the stack asks for may not have been applied. Run edgeform plan ${stackPath} to check that no other changes are pending. ` +
      '--target is not for routine use: it is for exceptional situations such as recovering from errors or mistakes.',
  };
}
