import { must } from '../errors.js';
import type { Diagnostic } from '../config/diagnostics.js';
import { didYouMean } from '../config/did-you-mean.js';
import type { BlockReference, ResourceBlock, Stack } from '../config/types.js';
import { templateTargets, writeReference } from '../model/references.js';
import { isStackReference, type StackReferenceTarget } from '../model/stack-reference.js';

/**
 * The fleet's side of `${stack:NAME/TYPE.BLOCK.FIELD}` (the syntax is model/stack-reference.ts),
 * offline: checking such references against the stacks under the root and the order they put the
 * stacks in (`edgeform stacks` uses it without loading the API client; the reads are in
 * fleet-references.ts).
 */

/** A stack of the fleet as loaded (see loadFleet). */
export interface FleetMember {
  /** Its path, as discovery gives it. */
  path: string;
  name: string | null;
  valid: boolean;
  /** The stack, when it loaded (valid or not for the fleet). */
  stack?: Stack | undefined;
  diagnostics: Diagnostic[];
  files: ReadonlyMap<string, string>;
}

/** A member with what its references to other stacks read: the names of those stacks. */
export interface FleetStack extends FleetMember {
  reads: string[];
}

/** One reference to another stack, where it stands. */
export interface StackReferenceUse {
  block: ResourceBlock;
  reference: BlockReference;
  target: StackReferenceTarget;
}

/** The references to other stacks of a stack's blocks. */
export function stackReferencesOf(stack: Stack): StackReferenceUse[] {
  const out: StackReferenceUse[] = [];
  for (const block of stack.resources) {
    for (const reference of block.references ?? []) {
      for (const target of templateTargets(reference.parts)) if (isStackReference(target)) out.push({ block, reference, target });
    }
  }
  return out;
}

export function referenceError(use: StackReferenceUse, summary: string, detail?: string): Diagnostic {
  return {
    severity: 'error',
    code: 'invalid-reference',
    summary: `${writeReference(use.target)}: ${summary}`,
    ...(detail === undefined ? {} : { detail }),
    address: use.block.address,
    range: use.reference.range,
  };
}

/**
 * Checks every stack's references to other stacks against the fleet and orders the stacks so
 * that each comes after the stacks it reads. A reference is an error at the place it stands
 * (the stack is then invalid, and nothing is sent for it) when it names no stack of the fleet
 * (with the name it likely meant), a name two stacks have, its own stack (a reference within a
 * stack is `${TYPE.NAME.FIELD}`), a stack that is invalid, a block that stack does not declare
 * (with the address it likely meant), or one it declares with `ensure: absent`; references that
 * make a cycle between stacks are an error in each stack of the cycle, naming them all. The
 * order is stable: the fleet's own order (by path) wherever references allow. Pure.
 */
export function fleetOrder(members: readonly FleetMember[]): FleetStack[] {
  const byName = new Map<string, FleetMember[]>();
  for (const member of members) if (member.name !== null) byName.set(member.name, [...(byName.get(member.name) ?? []), member]);
  const names = [...byName.keys()];
  const out: FleetStack[] = members.map((m) => ({ ...m, diagnostics: [...m.diagnostics], reads: [] }));
  const uses = new Map<FleetStack, StackReferenceUse[]>();
  for (const member of out) {
    if (member.stack === undefined) continue;
    for (const use of stackReferencesOf(member.stack)) {
      const error = (summary: string, detail?: string) => {
        member.diagnostics.push(referenceError(use, summary, detail));
        member.valid = false;
      };
      const named = byName.get(use.target.stack);
      const [only] = named ?? [];
      if (use.target.stack === member.stack.name) error(`it names its own stack`, `Within a stack, write \${${use.target.type}.${use.target.name}.${use.target.field}}.`);
      else if (named === undefined || only === undefined)
        error(
          `no stack under the root is named "${use.target.stack}"${didYouMean(
            use.target.stack,
            names.filter((n) => n !== member.name),
          )}`,
          'NAME is the `name:` of another stack of the fleet.',
        );
      else if (named.length > 1)
        error(`${named.length} stacks are named "${use.target.stack}" (${named.map((m) => m.path).join(', ')}); a stack's name must be unique in the fleet`);
      else if (!only.valid || only.stack === undefined) error(`stack "${use.target.stack}" (${only.path}) is not valid: fix its errors first`);
      else {
        const address = `${use.target.type}.${use.target.name}`;
        const other = only.stack;
        const block = other.resources.find((b) => b.address === address);
        if (block === undefined)
          error(
            `stack "${use.target.stack}" declares no ${address}${didYouMean(
              address,
              other.resources.map((b) => b.address),
            )}`,
            `The blocks of ${only.path} are read by their address.`,
          );
        else if ((block.attributes as { ensure?: unknown }).ensure === 'absent')
          error(`stack "${use.target.stack}" declares ${address} with ensure: absent: it will not exist to be read`);
        else {
          if (!member.reads.includes(use.target.stack)) member.reads.push(use.target.stack);
          uses.set(member, [...(uses.get(member) ?? []), use]);
        }
      }
    }
  }
  return orderByReads(out, uses);
}

/** The stacks in dependency order (Kahn's, the fleet's order among the ready); a cycle is an error in each of its stacks. */
function orderByReads(stacks: FleetStack[], uses: ReadonlyMap<FleetStack, StackReferenceUse[]>): FleetStack[] {
  const byName = new Map(stacks.filter((s) => s.name !== null).map((s) => [must(s.name, 's.name'), s]));
  const ordered: FleetStack[] = [];
  const placed = new Set<FleetStack>();
  let left = [...stacks];
  while (left.length > 0) {
    // A name no stack of the fleet has is no stack to wait for (its reference is an error of its own).
    const ready = left.filter((s) =>
      s.reads.every((name) => {
        const target = byName.get(name);
        return target === undefined || placed.has(target);
      }),
    );
    if (ready.length === 0) {
      // What is left holds a cycle (or waits on one): each stack of a cycle says so, at its reference into it.
      for (const stack of left) {
        const cycle = cycleFrom(stack, byName);
        if (cycle === undefined) continue;
        const next = must(cycle[1], 'cycle[1]');
        const use = uses.get(stack)?.find((u) => u.target.stack === next);
        stack.diagnostics.push({
          severity: 'error',
          code: 'reference-cycle',
          summary: `the stacks read each other in a cycle: ${cycle.join(' -> ')}`,
          detail:
            'Stacks are planned and applied in the order their ${stack:...} references make; a cycle has no such order. Move a block so that one stack reads the other, not both.',
          ...(use ? { address: use.block.address, range: use.reference.range } : {}),
        });
        stack.valid = false;
      }
      // Everything left goes in the fleet's order (the invalid ones are never planned; the others wait on them).
      for (const stack of left) stack.reads = [];
      ordered.push(...left);
      break;
    }
    for (const stack of ready) placed.add(stack);
    ordered.push(...ready);
    left = left.filter((s) => !placed.has(s));
  }
  return ordered;
}

/** The cycle through `start` (names, `start` first and last), or undefined when it is on none. */
function cycleFrom(start: FleetStack, byName: ReadonlyMap<string, FleetStack>): string[] | undefined {
  const path: string[] = [must(start.name, 'start.name')];
  const seen = new Set<FleetStack>();
  const walk = (at: FleetStack): boolean => {
    for (const name of at.reads) {
      const next = byName.get(name);
      if (next === undefined) continue;
      if (next === start) {
        path.push(name);
        return true;
      }
      if (seen.has(next)) continue;
      seen.add(next);
      path.push(name);
      if (walk(next)) return true;
      path.pop();
    }
    return false;
  };
  return start.name !== null && walk(start) ? path : undefined;
}
