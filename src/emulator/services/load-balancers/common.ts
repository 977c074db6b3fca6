import { cloudError, placedIn, type CloudScope } from '../../cloud-common.js';
import type { CoreState } from '../../core-state.js';
import { stableUuid } from '../../fixture-parts.js';
import { fail } from '../../reply.js';
import type { RouteContext } from '../../router.js';
import type { TaskStart } from '../../collection.js';
import type { TaskRecord } from '../../tasks.js';
import type { FloatingIpSlice } from '../floating-ips/index.js';
import type { InstanceSlice } from '../instances/index.js';
import type { NetworkSlice } from '../networks/index.js';
import { uuid } from './fields.js';
import type { ListenerProtocol, LoadBalancerRecord, LoadBalancerSlice, PoolProtocol, ProvisioningStatus, SecretRecord } from './model.js';

/** What the load balancer routes read: their slice, and the networks, floating IPs and instances a balancer and its members name. */
export type LbState = LoadBalancerSlice & NetworkSlice & FloatingIpSlice & InstanceSlice;
export type LbCtx = RouteContext<LbState>;

/** What a balancer task's end sees: the core (mutation log) and the slices. */
export type LbTaskState = CoreState & LbState;

/** A finished (or failed) task on a balancer, as its TaskTarget gets it. */
export type LbTask = TaskRecord<{ type: string; [field: string]: unknown }>;

/** The region name of a new record of the region: a balancer's, a network's, else the world's. */
export function regionName(ctx: LbCtx, regionId: number): string {
  for (const map of [ctx.state.loadBalancers, ctx.state.networks, ctx.state.secrets]) for (const r of map.values()) if (r.region_id === regionId) return r.region;
  return ctx.state.defaults.region;
}

/** A new id per create of `taskType` since the last reset (counted by its tasks), never one `taken` holds. */
export function newId(ctx: LbCtx, taskType: string, taken: ReadonlyMap<string, unknown>, { projectId, regionId }: CloudScope): string {
  let n = [...ctx.state.tasks.values()].filter((t) => t.task_type === taskType).length;
  let id = stableUuid(`created-${taskType}/${projectId}/${regionId}/${n}`);
  while (taken.has(id)) id = stableUuid(`created-${taskType}/${projectId}/${regionId}/${++n}`);
  return id;
}

/**
 * 409 while a task runs on the balancer: every write to it or to one of its listeners, pools,
 * members, monitors or L7 policies is a task on the balancer, and the platform refuses another
 * write until that task is over (Octavia's ImmutableObject, the balancer PENDING_*).
 */
export function assertBalancerFree(ctx: Pick<LbCtx, 'requestId'>, lb: LoadBalancerRecord): void {
  if (lb.task_id !== null) {
    fail(
      cloudError(
        409,
        `Load Balancer ${lb.id} is immutable and cannot be updated: it is ${lb.provisioning_status} while task ${lb.task_id} runs; retry when the task has finished`,
        ctx.requestId,
      ),
    );
  }
}

/** What every child of a balancer carries of it: its place and its id. */
export function onBalancer(lb: LoadBalancerRecord): { project_id: number; region_id: number; region: string; load_balancer_id: string } {
  return { project_id: lb.project_id, region_id: lb.region_id, region: lb.region, load_balancer_id: lb.id };
}

/** A child of a balancer: it names its balancer and shows what a task is doing to it. */
interface Child {
  load_balancer_id: string;
  provisioning_status: ProvisioningStatus;
}

/** 409 while a task runs on the child's balancer (see assertBalancerFree). */
export function assertChildFree(ctx: LbCtx, child: Pick<Child, 'load_balancer_id'>): void {
  assertBalancerFree(ctx, ctx.state.loadBalancers.get(child.load_balancer_id)!);
}

/**
 * A child's update: 409 while its balancer is busy; no task when nothing would change (the
 * v2 PATCHes then answer `{"tasks": []}`); else the child shows PENDING_UPDATE and the task
 * `type` carries `effect`.
 */
export function updateChild(ctx: LbCtx, child: Child, changed: boolean, type: string, effect: Record<string, unknown>): TaskStart | undefined {
  assertChildFree(ctx, child);
  if (!changed) return undefined;
  child.provisioning_status = 'PENDING_UPDATE';
  return { type, effect: { type, ...effect }, data: ctx.body };
}

/** A child collection's DELETE: 409 while its balancer is busy, else the child PENDING_DELETE by task `type` (its effect from `effect`). */
export function deleteChild<Rec extends Child>(type: string, effect: (ctx: LbCtx, child: Rec) => Record<string, unknown>) {
  return {
    check: (ctx: LbCtx, child: Rec): void => assertChildFree(ctx, child),
    task(ctx: LbCtx, child: Rec): TaskStart {
      const fields = effect(ctx, child);
      child.provisioning_status = 'PENDING_DELETE';
      return { type, effect: { type, ...fields }, data: ctx.query.size > 0 ? Object.fromEntries(ctx.query) : null };
    },
  };
}

/** The balancer a body's field names, in the path's project and region; 400 for a malformed id, 404 when there is none. */
export function balancerNamed(ctx: LbCtx, value: unknown, field: string, scope: CloudScope): LoadBalancerRecord {
  const id = uuid(ctx, value, field);
  const lb = ctx.state.loadBalancers.get(id);
  if (lb === undefined || !placedIn(lb, scope)) fail(cloudError(404, `Load balancer ${id} not found`, ctx.requestId));
  return lb;
}

/** The secret a body's field names, in the path's project and region; 400 for a malformed id, 404 when there is none. */
export function secretNamed(ctx: LbCtx, value: unknown, field: string, scope: CloudScope): SecretRecord {
  const id = uuid(ctx, value, field);
  const secret = ctx.state.secrets.get(id);
  if (secret === undefined || !placedIn(secret, scope)) fail(cloudError(404, `Secret ${id} not found`, ctx.requestId));
  return secret;
}

/** Which pool protocols each listener protocol forwards to (Octavia's valid listener/pool protocol map); PROMETHEUS takes no pool. */
const POOL_PROTOCOLS_OF: Record<ListenerProtocol, readonly PoolProtocol[]> = {
  HTTP: ['HTTP', 'PROXY', 'PROXYV2'],
  HTTPS: ['HTTPS', 'PROXY', 'PROXYV2', 'TCP'],
  TERMINATED_HTTPS: ['HTTP', 'PROXY', 'PROXYV2'],
  TCP: ['HTTP', 'HTTPS', 'PROXY', 'PROXYV2', 'TCP'],
  UDP: ['UDP'],
  PROMETHEUS: [],
};

/** 400 unless a pool of `pool` protocol can serve a listener of `listener` protocol. */
export function assertPoolFitsListener(ctx: Pick<LbCtx, 'requestId'>, listener: ListenerProtocol, pool: PoolProtocol, field: string): void {
  const allowed = POOL_PROTOCOLS_OF[listener];
  if (allowed.includes(pool)) return;
  fail(
    cloudError(
      400,
      allowed.length === 0 ? `${field}: a ${listener} listener takes no pool` : `${field}: a ${pool} pool cannot serve a ${listener} listener (it takes ${allowed.join(', ')})`,
      ctx.requestId,
    ),
  );
}
