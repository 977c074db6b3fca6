import { z } from 'zod';
import { defineKind } from '../kind-spec.js';
import { ensureDeletable, positiveId } from '../fields.js';

const shape = () =>
  z.strictObject({
    reseller_id: positiveId.describe('The reseller id (integer).'),
    notification_settings_id: positiveId
      .optional()
      .describe('The notification setting id (integer). Omitted: edgeform finds the setting by reseller_id, notification_type and email, and creates it when there is none.'),
    notification_type: z.enum(['deletion_request', 'failed_login']).describe('What the notification is about.'),
    email: z
      .email({ error: 'must be an email address such as ops@example.com' })
      .max(254, { error: 'an email address must be at most 254 characters' })
      .describe('Where the notification goes (at most 254 characters).'),
    enabled: z.boolean().optional().describe('Whether the notification is sent; omitted = not managed (a created setting gets the platform default).'),
    ensure: ensureDeletable,
  });

/**
 * iam_reseller_notification_setting: one reseller notification setting. A block with its id adopts
 * it (its type, e-mail and enabled flag are updated in place); one without is found by its
 * natural key (reseller, notification type and e-mail), created when missing, and only its
 * enabled flag can change in place (another type or e-mail is another setting).
 */
export const iamResellerNotificationSettingKind = defineKind({
  type: 'iam_reseller_notification_setting',
  kind: 'resource',
  description: 'A reseller notification setting, by id or by reseller, notification type and e-mail; edgeform creates, updates and deletes it.',
  identity: ['notification_settings_id', 'notification_type', 'email'],
  create: { idField: 'notification_settings_id', key: ['reseller_id', 'notification_type', 'email'] },
  readable: {
    id: { type: 'number', description: 'The notification setting id (integer).', read: (s) => s.notification_settings_id },
    email: { type: 'string', description: 'The address notified.', read: (s) => s.email },
    notification_type: { type: 'string', description: 'What the notification is about.', read: (s) => s.notification_type },
  },
  shape,
});
