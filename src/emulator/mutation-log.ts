/**
 * One change the emulator made to a resource, at the moment it took effect: a task's effect
 * when the task finished successfully, or a synchronous write (DELETE, PATCH, POST) that changed
 * something. A request that left the resource as it was (an idempotent repeat, a PATCH of equal
 * values, a task that ended in ERROR) is not a change and is not recorded.
 */
export interface MutationLogEntry<Kind extends string = string> {
  /** Emulator time (ms epoch) when the change took effect. */
  time: number;
  /** The kind of resource, as the service that changed it names it (services/index.ts: MutationKind). */
  kind: Kind;
  /** The resource's id as the store keys it: a UUID, a number as text, or a cluster's `project/region/name`. */
  id: string;
  /** What was done: the task type (resize_vm, upgrade_k8s_cluster_v2, update_floating_ip), `update`, `create` or `delete`. */
  change: string;
  /** The changed fields as they are after the change (for a delete: empty). */
  after: Record<string, unknown>;
  /** The task whose effect this is, for task changes; else null. */
  taskId: string | null;
}

/**
 * The emulator's own record of what it changed, in order: the ground truth a test compares an
 * apply's report with (was each reported change made, exactly once; was nothing else changed?).
 * Emptied by reset().
 */
export type MutationLog<Kind extends string = string> = MutationLogEntry<Kind>[];
