import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import type { FieldChange } from '../../plan/types.js';
import type { ResourceProvider } from '../provider.js';
import { defineListReads } from '../list-read.js';
import { listEndpointOf } from '../kind-list.js';
import { settingImport } from './import.js';
import { settingAnswer, settingList, type Setting } from './list.js';
import { readOrGone, requireAction, requirePayload } from '../shared.js';

/** The update's payload: the full PATCH body the platform requires (all three fields). */
const payloadSchema = z.object({ body: z.object({ notification_type: z.string().min(1), email: z.string().min(1), enabled: z.boolean() }) });

const settingPath = (reseller: number, id: number) => apiPath`/iam/reselling/resellers/${reseller}/notification_settings/${id}`;

const FIELDS = ['notification_type', 'email', 'enabled'] as const;

/** Reads one setting (GET) or a reseller's settings (the list), with one projection. */
const reads = defineListReads<'iam_reseller_notification_setting', Setting>({
  readOne: (ctx, d) => readOrGone(async () => (await ctx.api.get(settingPath(d.reseller_id, d.notification_settings_id), { schema: settingAnswer, signal: ctx.signal })).body),
  project: (_ctx, _desired, s) => ({ exists: true, state: { notification_settings_id: s.id, notification_type: s.notification_type, email: s.email, enabled: s.enabled } }),
  list: {
    group: (d) => String(d.reseller_id),
    memberId: (d) => String(d.notification_settings_id),
    itemId: (s) => String(s.id),
    ...listEndpointOf(settingList, ([d]) => d),
  },
});

/**
 * A reseller's notification setting (deletion_request or failed_login e-mails). The PATCH
 * requires the full body (notification_type and email even when unchanged), so apply always
 * sends all three fields, taking `enabled` from the platform when the stack leaves it out.
 * A reseller's settings are read together from its list (`limit`/`offset`).
 */
export const iamResellerNotificationSetting: ResourceProvider<'iam_reseller_notification_setting'> = {
  payloadSchema,
  kind: 'resource',
  type: 'iam_reseller_notification_setting',
  idField: 'notification_settings_id',
  verbs: { update: ['Modifying', 'Modified'], delete: ['Destroying', 'Destroyed'] },

  read: reads.read,
  groupRead: reads.groupRead,
  import: settingImport,

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

  async apply(ctx, change) {
    requireAction(change, 'update');
    const d = change.desired;
    const { body } = requirePayload(change, payloadSchema);
    await ctx.api.request({ method: 'PATCH', path: settingPath(d.reseller_id, d.notification_settings_id), body, retry: 'idempotent', signal: ctx.signal });
  },
};
