import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import type { FieldChange } from '../../plan/types.js';
import type { ResourceProvider } from '../provider.js';
import { readOrGone, requireAction, requirePayload } from '../shared.js';

/** The fields of a notification setting answer (NotificationSettingsRead) edgeform reads. */
const settingAnswer = z.looseObject({
  id: z.number().int(),
  notification_type: z.string(),
  email: z.string(),
  enabled: z.boolean(),
});

/** The update's payload: the full PATCH body the platform requires (all three fields). */
const payloadSchema = z.object({ body: z.object({ notification_type: z.string().min(1), email: z.string().min(1), enabled: z.boolean() }) });

const settingPath = (reseller: number, id: number) => apiPath`/iam/reselling/resellers/${reseller}/notification_settings/${id}`;

const FIELDS = ['notification_type', 'email', 'enabled'] as const;

/**
 * A reseller's notification setting (deletion_request or failed_login e-mails). The PATCH
 * requires the full body (notification_type and email even when unchanged), so apply always
 * sends all three fields, taking `enabled` from the platform when the stack leaves it out.
 */
export const iamResellerNotificationSetting: ResourceProvider<'iam_reseller_notification_setting'> = {
  payloadSchema,
  kind: 'resource',
  type: 'iam_reseller_notification_setting',
  idField: 'notification_settings_id',
  verbs: { update: ['Modifying', 'Modified'], delete: ['Destroying', 'Destroyed'] },

  async read(ctx, desired) {
    const path = settingPath(desired.reseller_id, desired.notification_settings_id);
    const s = await readOrGone(async () => (await ctx.api.get(path, { schema: settingAnswer, signal: ctx.signal })).body);
    if (!s) return { exists: false };
    return { exists: true, state: { notification_settings_id: s.id, notification_type: s.notification_type, email: s.email, enabled: s.enabled } };
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

  async apply(ctx, change) {
    requireAction(change, 'update');
    const d = change.desired;
    const { body } = requirePayload(change, payloadSchema);
    await ctx.api.request({ method: 'PATCH', path: settingPath(d.reseller_id, d.notification_settings_id), body, retry: 'idempotent', signal: ctx.signal });
  },
};
