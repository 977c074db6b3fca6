import { z } from 'zod';
import { CLOUD_PRODUCT, placeIn, placementFixture, type Placement } from '../../cloud-common.js';
import { datetime, fixtureDate, fixtureTags, listSection, nextTaskError, stableUuid, tagMap, uuid } from '../../fixture-parts.js';
import { defineService } from '../../service.js';
import { applyTagsPatch, userTagMap, type Tag, type TagsPatch } from '../../tags.js';
import type { TaskTarget } from '../../tasks.js';
import { floatingIps } from './routes.js';

/** A floating IP as held in memory (API field names; datetimes as epoch ms). */
export interface FloatingIpRecord extends Placement {
  id: string;
  floating_ip_address: string | null;
  fixed_ip_address: string | null;
  port_id: string | null;
  router_id: string | null;
  status: 'ACTIVE' | 'DOWN' | 'ERROR' | null;
  tags: Tag[];
  /** The task holding the lock, or null. */
  task_id: string | null;
  creator_task_id: string | null;
  created_at: number;
  updated_at: number;
  /** Instance shown in the list's `instance` field, when it exists in the emulator. */
  instance_id: string | null;
  /** When set, the next task started on this resource ends in ERROR with this message. */
  next_task_error: string | null;
}

/** The floating IP service's slice of the state. */
export interface FloatingIpSlice {
  readonly floatingIps: Map<string, FloatingIpRecord>;
}

/** What update_floating_ip does when it finishes. */
export type FloatingIpUpdateEffect = {
  type: 'update_floating_ip';
  /** Tags merge patch; undefined when the request did not mention tags. */
  tags?: TagsPatch | undefined;
  /** New association; undefined when the request did not mention port_id. */
  port?: { port_id: string | null; fixed_ip_address: string | null } | undefined;
};

/**
 * What create_fip and delete_fip do when they finish: a create leaves the floating IP made at the
 * POST in place (a failed one removes it), a delete removes it (a failed one leaves it).
 */
export type FloatingIpLifecycleEffect = { type: 'create_fip' } | { type: 'delete_fip' };

/** What a floating IP task does when it finishes. */
export type FloatingIpEffect = FloatingIpUpdateEffect | FloatingIpLifecycleEffect;

const floatingIpFixture = z.strictObject({
  id: uuid,
  ...placementFixture,
  floating_ip_address: z.string().nullable().default(null),
  fixed_ip_address: z.string().nullable().default(null),
  port_id: uuid.nullable().default(null),
  router_id: uuid.nullable().default(null),
  status: z.enum(['ACTIVE', 'DOWN', 'ERROR']).default('DOWN'),
  tags: tagMap.default({}),
  read_only_tags: tagMap.default({}),
  instance_id: uuid.nullable().default(null),
  creator_task_id: uuid.nullable().default(null),
  created_at: datetime.optional(),
  updated_at: datetime.optional(),
  next_task_error: nextTaskError,
});

const floatingIpTasks: TaskTarget<'floating_ip', FloatingIpRecord, FloatingIpEffect, FloatingIpSlice> = {
  kind: 'floating_ip',
  find: (state, id) => state.floatingIps.get(id),
  finish(state, fip, task, ok) {
    const { effect } = task;
    if (effect.type === 'create_fip') {
      if (!ok) state.floatingIps.delete(fip.id);
      else state.recordMutation(task.finish_at, 'floating_ip', fip.id, 'create_fip', { tags: userTagMap(fip.tags) }, task.id);
      return;
    }
    if (!ok) return;
    if (effect.type === 'delete_fip') {
      state.floatingIps.delete(fip.id);
      state.recordMutation(task.finish_at, 'floating_ip', fip.id, 'delete_fip', {}, task.id);
      return;
    }
    const after: Record<string, unknown> = {};
    if (effect.tags !== undefined) {
      fip.tags = applyTagsPatch(fip.tags, effect.tags);
      after.tags = userTagMap(fip.tags);
    }
    if (effect.port) {
      fip.port_id = effect.port.port_id;
      fip.fixed_ip_address = effect.port.fixed_ip_address;
      fip.status = effect.port.port_id === null ? 'DOWN' : 'ACTIVE';
      after.port_id = fip.port_id;
      after.fixed_ip_address = fip.fixed_ip_address;
    }
    fip.updated_at = task.finish_at;
    state.recordMutation(task.finish_at, 'floating_ip', fip.id, task.task_type, after, task.id);
  },
};

/**
 * Cloud floating IPs: GET one and list (v1, the list filtered by status, tag_key and
 * tag_key_value), POST create (task create_fip, whose finished answer lists the IP in
 * created_resources), DELETE (task delete_fip), PATCH v2 (task update_floating_ip: tags merge
 * patch and port association), deprecated synchronous PATCH v1. Fixtures: `floating_ips`.
 */
export const floatingIpsService = defineService({
  product: CLOUD_PRODUCT,
  fixtures: { floating_ips: listSection(floatingIpFixture) },
  fixtureIds: { floating_ips: (x) => x.id },
  createState: (): FloatingIpSlice => ({ floatingIps: new Map() }),
  load(slice, { floating_ips }, world) {
    slice.floatingIps.clear();
    for (const x of floating_ips) {
      slice.floatingIps.set(x.id, {
        id: x.id,
        ...placeIn(world, x),
        floating_ip_address: x.floating_ip_address,
        fixed_ip_address: x.fixed_ip_address,
        port_id: x.port_id,
        router_id: x.router_id,
        status: x.status,
        tags: fixtureTags(x.tags, x.read_only_tags),
        task_id: null,
        creator_task_id: x.creator_task_id ?? stableUuid(`creator-task/${x.id}`),
        created_at: fixtureDate(x.created_at),
        updated_at: fixtureDate(x.updated_at ?? x.created_at),
        instance_id: x.instance_id,
        next_task_error: x.next_task_error,
      });
    }
  },
  dump: (state) => ({ floating_ips: [...state.floatingIps.values()] }),
  routes: floatingIps.routes,
  mutationKinds: ['floating_ip'],
  taskTargets: [floatingIpTasks],
});
