import { defineImport } from '../kind-list.js';
import { settingList } from './list.js';

/**
 * Importing notification settings: those of a reseller (the platform does not list resellers,
 * so the reseller is always named), each pinned by its id with its type, email and enabled flag;
 * named after the notification type.
 */
export const settingImport = defineImport('iam_reseller_notification_setting', {
  scope: 'reseller',
  list: settingList,
  itemId: (setting) => String(setting.id),
  attributes: (setting, s) => ({
    reseller_id: s.reseller_id,
    notification_settings_id: setting.id,
    // A type the schema does not know fails the import, naming the item (see defineImport).
    notification_type: setting.notification_type as 'deletion_request' | 'failed_login',
    email: setting.email,
    enabled: setting.enabled,
  }),
  blockName: (setting) => setting.notification_type,
  facts: (setting) => [
    ['type', setting.notification_type],
    ['email', setting.email],
  ],
});
