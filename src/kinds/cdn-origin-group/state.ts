import type { OriginGroup } from './list.js';

/** A group's host origins as a block writes them (source, backup, enabled), in the platform's order. */
export function originsOf(group: OriginGroup): Array<{ source: string; backup: boolean; enabled: boolean }> {
  return (group.sources ?? []).filter((s) => s.source !== undefined).map((s) => ({ source: s.source!, backup: s.backup ?? false, enabled: s.enabled ?? true }));
}

/** The state of an origin group: what plans compare and references read (`proxy_next_upstream` sorted: a set). */
export function groupState(group: OriginGroup): Record<string, unknown> {
  return {
    origin_group_id: group.id,
    name: group.name,
    origins: originsOf(group),
    use_next: group.use_next ?? false,
    proxy_next_upstream: [...(group.proxy_next_upstream ?? [])].sort(),
  };
}
