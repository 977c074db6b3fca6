import { stableUuid } from '../../fixture-parts.js';
import { applyTagsPatch, userTagMap, type TagsPatch } from '../../tags.js';
import type { TaskEffect, TaskTarget } from '../../tasks.js';
import { freeAddress } from '../floating-ips/routes.js';
import type { LbState, LbTask, LbTaskState } from './common.js';
import { finishL7Task } from './l7.js';
import { finishListenerTask } from './listeners.js';
import { childrenOf, type LbLogging, type LoadBalancerRecord, type SecretRecord } from './model.js';
import { finishPoolTask } from './pools.js';

/**
 * What a task on a balancer does when it finishes. The balancer's own tasks (create, update,
 * resize, delete) and every task on its listeners, pools, members, monitors and L7 policies and
 * rules: they all lock the balancer, which is how the platform refuses a second write while one runs.
 */
export interface LoadBalancerEffect extends TaskEffect {
  type: string;
}

/** The balancer PATCH's changes as its task carries them (tags as a merge patch). */
interface BalancerChanges {
  name?: string;
  admin_state_up?: boolean;
  preferred_connectivity?: 'L2' | 'L3';
  logging?: LbLogging;
  tags?: TagsPatch;
}

/** Marks a balancer and everything under it ACTIVE (its create or its failed delete is over). */
function activateAll(state: LbState, lb: LoadBalancerRecord): void {
  lb.provisioning_status = 'ACTIVE';
  const { listeners, pools, policies } = childrenOf(state, lb.id);
  for (const l of listeners) l.provisioning_status = 'ACTIVE';
  for (const p of policies) p.provisioning_status = 'ACTIVE';
  for (const p of pools) {
    p.provisioning_status = 'ACTIVE';
    for (const m of p.members) m.provisioning_status = 'ACTIVE';
    if (p.healthmonitor) p.healthmonitor.provisioning_status = 'ACTIVE';
  }
}

/** Removes a balancer with its listeners, pools and L7 policies. */
function removeAll(state: LbState, lb: LoadBalancerRecord): void {
  const { listeners, pools, policies } = childrenOf(state, lb.id);
  for (const l of listeners) state.lbListeners.delete(l.id);
  for (const p of pools) state.lbPools.delete(p.id);
  for (const p of policies) state.lbL7Policies.delete(p.id);
  state.loadBalancers.delete(lb.id);
}

/** Associates the create's floating IP with the VIP port: the existing one it named, or a new one from the pool. */
function associateFloatingIp(state: LbTaskState, lb: LoadBalancerRecord, task: LbTask): void {
  const wanted = lb.pending_floating_ip;
  lb.pending_floating_ip = null;
  if (wanted === null) return;
  const at = { port_id: lb.vip_port_id, fixed_ip_address: lb.vip_address, status: 'ACTIVE' as const, updated_at: task.finish_at };
  if (wanted.source === 'existing') {
    const fip = state.floatingIps.get(wanted.existing_floating_id);
    if (fip) Object.assign(fip, at);
    return;
  }
  const address = freeAddress(state);
  if (address === null) return;
  const id = stableUuid(`${lb.id}/floating-ip`);
  state.floatingIps.set(id, {
    id,
    project_id: lb.project_id,
    region_id: lb.region_id,
    region: lb.region,
    floating_ip_address: address,
    router_id: null,
    tags: [],
    task_id: null,
    creator_task_id: task.id,
    created_at: task.finish_at,
    instance_id: null,
    next_task_error: null,
    ...at,
  });
}

/** Ends a balancer's own task (create, update, resize, delete). */
function finishBalancerTask(state: LbTaskState, lb: LoadBalancerRecord, task: LbTask, ok: boolean): void {
  const effect = task.effect;
  const log = (after: Record<string, unknown> = {}): void => state.recordMutation(task.finish_at, 'load_balancer', lb.id, effect.type, after, task.id);
  if (effect.type === 'create_loadbalancer') {
    if (!ok) return removeAll(state, lb);
    activateAll(state, lb);
    associateFloatingIp(state, lb, task);
    return log({ name: lb.name, flavor: lb.flavor, tags: userTagMap(lb.tags), listeners: childrenOf(state, lb.id).listeners.length });
  }
  if (effect.type === 'delete_loadbalancer') {
    if (!ok) return activateAll(state, lb);
    for (const fip of state.floatingIps.values()) {
      if (lb.vip_port_id !== null && fip.port_id === lb.vip_port_id) Object.assign(fip, { port_id: null, fixed_ip_address: null, status: 'DOWN', updated_at: task.finish_at });
    }
    removeAll(state, lb);
    return log();
  }
  lb.provisioning_status = 'ACTIVE';
  if (!ok) return;
  lb.updated_at = task.finish_at;
  if (effect.type === 'resize_loadbalancer') {
    lb.flavor = effect.flavor as string;
    return log({ flavor: lb.flavor });
  }
  const { tags, ...changes } = effect.changes as BalancerChanges;
  Object.assign(lb, changes);
  const after: Record<string, unknown> = { ...changes };
  if (tags !== undefined) {
    lb.tags = applyTagsPatch(lb.tags, tags);
    after.tags = userTagMap(lb.tags);
  }
  log(after);
}

/** The balancer's own task types; every other task on it is a child's. */
const OWN = ['create_loadbalancer', 'update_loadbalancer', 'resize_loadbalancer', 'delete_loadbalancer'];

/**
 * Tasks on balancers: the engine locks the balancer (its `task_id`) for every task on it or its
 * children; `begin` shows it PENDING_CREATE, PENDING_DELETE or PENDING_UPDATE, and `finish`
 * applies the effect (or puts things back) and shows it ACTIVE again.
 */
export const balancerTasks: TaskTarget<'load_balancer', LoadBalancerRecord, LoadBalancerEffect, LbState> = {
  kind: 'load_balancer',
  find: (state, id) => state.loadBalancers.get(id),
  begin(lb, effect) {
    lb.provisioning_status = effect.type === 'create_loadbalancer' ? 'PENDING_CREATE' : effect.type === 'delete_loadbalancer' ? 'PENDING_DELETE' : 'PENDING_UPDATE';
  },
  finish(state, lb, task, ok) {
    const type = task.effect.type;
    if (OWN.includes(type)) return finishBalancerTask(state, lb, task, ok);
    lb.provisioning_status = 'ACTIVE';
    if (ok) lb.updated_at = task.finish_at;
    if (type.endsWith('_lblistener')) finishListenerTask(state, task, ok);
    else if (type.endsWith('_l7policy') || type.endsWith('_l7rule')) finishL7Task(state, task, ok);
    else finishPoolTask(state, task, ok);
  },
};

/** Tasks on secrets: a create keeps the secret made at the POST (a failed one removes it), a delete removes it. */
export const secretTasks: TaskTarget<'secret', SecretRecord, TaskEffect, LbState> = {
  kind: 'secret',
  find: (state, id) => state.secrets.get(id),
  finish(state, secret, task, ok) {
    const creating = task.task_type === 'create_secret';
    if (creating && !ok) state.secrets.delete(secret.id);
    if (!ok) return;
    if (!creating) state.secrets.delete(secret.id);
    state.recordMutation(task.finish_at, 'secret', secret.id, task.task_type, creating ? { name: secret.name } : {}, task.id);
  },
};
