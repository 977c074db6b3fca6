import type { ResourceBlock, CheckBlock, Stack } from '../../src/config/types.js';
import type { ResourceAttributes, CheckAttributes, ResourceType, CheckType } from '../../src/kinds/registry.js';

const range = { filename: 'stack.yaml', start: { line: 1, column: 1 }, end: { line: 1, column: 2 } };

/** A resource block built directly (no parsing) for pure planner and executor tests. */
export function resource<T extends ResourceType>(type: T, name: string, attributes: ResourceAttributes[T], dependsOn: string[] = []): ResourceBlock<T> {
  return { kind: 'resource', type, name, address: `${type}.${name}`, dependsOn, range, fieldSources: {}, attributes };
}

/** A check block built directly. */
export function checkBlock<T extends CheckType>(type: T, name: string, attributes: CheckAttributes[T], dependsOn: string[] = []): CheckBlock<T> {
  return { kind: 'check', type, name, address: `${type}.${name}`, dependsOn, range, fieldSources: {}, attributes };
}

/** A stack around the given blocks. */
export function stackOf(resources: ResourceBlock[], checks: CheckBlock[] = []): Stack {
  return { version: 1, sources: ['stack.yaml'], prune: false, provider: {}, resources, checks, digest: 'f'.repeat(64) };
}
