import type { StackView } from './provider.js';

/**
 * The origin groups the stack destroys (`cdn_origin_group` blocks with `ensure: absent` that
 * exist), by id, with their blocks' addresses: a pruned CDN resource or rule that uses one is
 * destroyed before it (its depends_on names the group, which apply reverses between two deletes),
 * as the platform refuses to delete a group in use. Needs the reads (StackView.read).
 */
export function destroyedOriginGroups(stack: StackView): ReadonlyMap<number, string> {
  const groups = new Map<number, string>();
  for (const block of stack.read?.('cdn_origin_group') ?? []) {
    if (block.attributes.ensure !== 'absent' || block.observation?.exists !== true) continue;
    const id = block.observation.state.origin_group_id;
    if (typeof id === 'number' && !groups.has(id)) groups.set(id, block.address);
  }
  return groups;
}

/**
 * Whether the stack has a block of a CDN kind: the account's CDN resources are listed for prune
 * only then, so a stack that has nothing to do with the CDN sends it no request (as the cloud
 * kinds list only the places their blocks name).
 */
export function usesCdn(stack: StackView): boolean {
  return stack.blocks('cdn_resource').length > 0 || stack.blocks('cdn_rule').length > 0 || stack.blocks('cdn_origin_group').length > 0;
}

/** The depends_on of a pruned resource or rule that uses origin group `id` (none when the stack does not destroy it). */
export function groupDependency(groups: ReadonlyMap<number, string>, id: unknown): { dependsOn?: string[] } {
  const address = typeof id === 'number' ? groups.get(id) : undefined;
  return address === undefined ? {} : { dependsOn: [address] };
}
