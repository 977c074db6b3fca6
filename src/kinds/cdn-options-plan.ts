import type { FieldChange } from '../plan/types.js';
import { declaredOptionsDiff, projectDeclaredOptions } from './cdn-options.js';

/** What a CDN resource's or rule's declared `options` plan to: nothing when the block declares none. */
export interface OptionsPlan {
  /** One change per declared option that differs (`options.NAME`). */
  changes: FieldChange[];
  /** The live options cut to what is declared (the plan's before), when options are declared. */
  before?: Record<string, unknown>;
  /** The PATCH body's `options` (only the options that differ), when any differ. */
  body: { options?: Record<string, unknown> };
}

/** Plans a block's declared options against the live ones: only declared options, and within each only declared fields, compare. */
export function planDeclaredOptions(desired: Record<string, unknown> | undefined, live: Record<string, unknown>): OptionsPlan {
  if (desired === undefined) return { changes: [], body: {} };
  const diff = declaredOptionsDiff(desired, live);
  return {
    changes: diff.map((c): FieldChange => ({ path: ['options', c.option], op: c.before === null ? 'add' : 'update', before: c.before, after: c.after })),
    before: projectDeclaredOptions(desired, live),
    body: diff.length === 0 ? {} : { options: Object.fromEntries(diff.map((c) => [c.option, c.after])) },
  };
}
