import { z } from 'zod';
import { defineKind } from '../kind-spec.js';
import { ensurePresentOnly, positiveId } from '../fields.js';

/** iam_reseller_notification_setting: one reseller notification setting, updated in place. */
export const iamResellerNotificationSettingKind = defineKind({
  type: 'iam_reseller_notification_setting',
  kind: 'resource',
  description: 'An existing reseller notification setting, by reseller and id; edgeform sets its type, email and enabled flag.',
  identity: ['notification_settings_id'],
  shape: z.strictObject({
    reseller_id: positiveId.describe('The reseller id (integer).'),
    notification_settings_id: positiveId.describe('The notification setting id (integer).'),
    notification_type: z.enum(['deletion_request', 'failed_login']).describe('What the notification is about.'),
    email: z
      .email({ error: 'must be an email address such as ops@example.com' })
      .max(254, { error: 'an email address must be at most 254 characters' })
      .describe('Where the notification goes (at most 254 characters).'),
    enabled: z.boolean().optional().describe('Whether the notification is sent; omitted = not managed.'),
    ensure: ensurePresentOnly('iam_reseller_notification_setting'),
  }),
});
