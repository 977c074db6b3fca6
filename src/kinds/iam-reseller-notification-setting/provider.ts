import { must } from '../../errors.js';
import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import type { FieldChange } from '../../plan/types.js';
import { createPlan, onlyMatch } from '../create.js';
import { listAll, listEndpointOf } from '../kind-list.js';
import type { ProviderContext, ResourceProvider } from '../provider.js';
import { defineListReads } from '../list-read.js';
import type { ResourceAttributes } from '../registry.js';
import { defineLifecycle } from '../lifecycle.js';
import { readOrGone } from '../shared.js';
import { settingImport } from './import.js';
import { settingAnswer, settingList, type Setting } from './list.js';

type Desired = ResourceAttributes['iam_reseller_notification_setting'];

/** The update's payload: the full PATCH body the platform requires (all three fields). */
const payloadSchema = z.object({ body: z.object({ notification_type: z.string().min(1), email: z.string().min(1), enabled: z.boolean() }) });

/** The create's payload: the POST body (NotificationSettingsWrite); `enabled` only when the stack sets it. */
const createPayloadSchema = z.object({ body: z.object({ notification_type: z.string().min(1), email: z.string().min(1), enabled: z.boolean().optional() }) });

const settingPath = (reseller: number, id: number | string) => apiPath`/iam/reselling/resellers/${reseller}/notification_settings/${id}`;

const FIELDS = ['notification_type', 'email', 'enabled'] as const;

/** How a block without an id is found again: its natural key, as plans show it. */
function describeKey(d: Pick<Desired, 'reseller_id' | 'notification_type' | 'email'>): string {
  return `reseller_id ${d.reseller_id}, notification_type "${d.notification_type}" and email ${JSON.stringify(d.email)}`;
}

/** Every notification setting of a reseller, page after page (the list has no filter but paging). */
function listSettings(ctx: ProviderContext, reseller: number): Promise<Setting[]> {
  return listAll(ctx, settingList, { reseller_id: reseller }, (s) => String(s.id));
}

/** A setting's natural key within its reseller, for matching list items: its type and e-mail. */
const settingKey = (type: string | undefined, email: string | undefined) => JSON.stringify([type, email]);

/** The one setting among `settings` with the block's natural key; more than one is an error naming them. */
function pickByKey(d: Desired, settings: readonly Setting[]): { item: Setting; foundBy: string } | null {
  const identity = describeKey(d);
  const matches = settings.filter((s) => s.notification_type === d.notification_type && s.email === d.email);
  const item = onlyMatch(matches, (s) => s.id, { type: 'iam_reseller_notification_setting', identity });
  return item === null ? null : { item, foundBy: identity };
}

/** Reads one setting (GET), a reseller's settings (the list), or finds one by its natural key, with one projection. */
const reads = defineListReads<'iam_reseller_notification_setting', Setting>({
  readOne: (ctx, d) =>
    readOrGone(
      async () =>
        (await ctx.api.get(settingPath(d.reseller_id, must(d.notification_settings_id, 'd.notification_settings_id')), { schema: settingAnswer, signal: ctx.signal })).body,
    ),
  project: (_ctx, _desired, s) => ({ exists: true, state: { notification_settings_id: s.id, notification_type: s.notification_type, email: s.email, enabled: s.enabled } }),
  hasId: (d) => d.notification_settings_id !== undefined,
  async find(ctx, d) {
    return pickByKey(d, await listSettings(ctx, d.reseller_id));
  },
  // The blocks of one reseller found by their natural key are found in the reseller's one list.
  findInList: {
    key: (d) => settingKey(d.notification_type, d.email),
    itemKey: (s) => settingKey(s.notification_type, s.email),
    pick: pickByKey,
  },
  list: {
    group: (d) => String(d.reseller_id),
    memberId: (d) => String(d.notification_settings_id),
    itemId: (s) => String(s.id),
    ...listEndpointOf(settingList, ([d]) => d),
  },
});

/** Create (POST, 201), update (PATCH with the full body) and delete; no tasks. */
const lifecycle = defineLifecycle('iam_reseller_notification_setting', {
  updateVerbs: ['Modifying', 'Modified'],
  create: {
    payload: createPayloadSchema,
    request: ({ desired, payload }) => ({ method: 'POST', path: settingList.path({ reseller_id: desired.reseller_id }), body: payload.body }),
  },
  update: { payload: payloadSchema, request: ({ desired, payload, id }) => ({ method: 'PATCH', path: settingPath(desired.reseller_id, id), body: payload.body }) },
  delete: { request: ({ desired, id }) => ({ method: 'DELETE', path: settingPath(desired.reseller_id, id) }) },
});

/**
 * A reseller's notification setting (deletion_request or failed_login e-mails). A block with
 * its id is read by it; one without is found by its natural key (reseller, notification type,
 * e-mail) in the reseller's list, which the platform cannot filter: more than one match is a
 * plan error naming them. The PATCH requires the full body (notification_type and email even
 * when unchanged), so an update always sends all three fields, taking `enabled` from the
 * platform when the stack leaves it out. A create (POST, 201) is never sent twice: when its
 * answer is lost, the executor's re-read by the natural key decides. A reseller's settings that
 * name their ids are read together from its list (`limit`/`offset`).
 */
export const iamResellerNotificationSetting: ResourceProvider<'iam_reseller_notification_setting'> = {
  ...lifecycle,
  kind: 'resource',
  type: 'iam_reseller_notification_setting',

  read: reads.read,
  groupRead: reads.groupRead,
  import: settingImport,

  create: {
    plan(desired) {
      const declared = { reseller_id: desired.reseller_id, notification_type: desired.notification_type, email: desired.email, enabled: desired.enabled };
      const body = { notification_type: desired.notification_type, email: desired.email, ...(desired.enabled === undefined ? {} : { enabled: desired.enabled }) };
      return createPlan(declared, 'notification_settings_id', { body });
    },
    identity: (desired) => (desired.notification_settings_id === undefined ? describeKey(desired) : null),
  },

  summarize: (state) => ({ ...state }),

  plan(desired, state) {
    const changes: FieldChange[] = [];
    const after: Record<string, unknown> = { ...state };
    for (const field of FIELDS) {
      const want = desired[field];
      if (want === undefined) continue;
      after[field] = want;
      if (state[field] !== want) changes.push({ path: [field], op: 'update', before: state[field], after: want });
    }
    return {
      action: changes.length > 0 ? 'update' : 'no-op',
      before: { ...state },
      after,
      changes,
      payload: changes.length > 0 ? { body: { notification_type: after.notification_type, email: after.email, enabled: after.enabled } } : undefined,
      errors: [],
      warnings: [],
      notes: [],
    };
  },
};
