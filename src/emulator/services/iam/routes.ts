import { defineCollection, type Created } from '../../collection.js';
import { isPlainObject, parseIntStrict } from '../../format.js';
import { offsetLimit } from '../../paging.js';
import { fail, jsonReply } from '../../reply.js';
import type { RouteContext, ServiceRoute } from '../../router.js';
import type { IamSlice, NotificationSettingRecord } from './index.js';
import { IAM_PRODUCT } from './product.js';

type Ctx = RouteContext<IamSlice>;

/** The kinds of notification a reseller can set. */
export const NOTIFICATION_TYPES = ['deletion_request', 'failed_login'] as const;
// The same address check as ajv-formats' `email`, so the emulator accepts what the vendor schema accepts.
const EMAIL = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i;
const ORDER_FIELDS = ['id', 'reseller', 'notification_type', 'email', 'enabled'] as const;

function validationError(errors: Record<string, string[]>): never {
  return fail(jsonReply(400, { errors }));
}

function pathInt(ctx: Ctx, name: string): number {
  const text = ctx.params[name] ?? '';
  const value = parseIntStrict(text);
  if (value === undefined) validationError({ [name]: ['A valid integer is required.'] });
  return value;
}

/** A notification setting in the NotificationSettingsRead shape. */
export function renderNotificationSetting(s: NotificationSettingRecord): Record<string, unknown> {
  return { id: s.id, reseller: s.reseller, notification_type: s.notification_type, email: s.email, enabled: s.enabled };
}

/**
 * The NotificationSettingsWrite body of a POST or PATCH, checked as the platform does (both
 * require notification_type and email; enabled is optional): 400 {"errors": {field: [...]}}.
 */
function checkWrite(ctx: Ctx): { notification_type: NotificationSettingRecord['notification_type']; email: string; enabled?: boolean } {
  const body = ctx.body;
  if (body === undefined) validationError({ non_field_errors: ['No data provided'] });
  if (!isPlainObject(body)) validationError({ non_field_errors: [`Invalid data. Expected a dictionary, but got ${Array.isArray(body) ? 'list' : typeof body}.`] });
  const errors: Record<string, string[]> = {};
  const { notification_type: type, email, enabled } = body;
  if (type === undefined) errors.notification_type = ['This field is required.'];
  else if (typeof type !== 'string' || !(NOTIFICATION_TYPES as readonly string[]).includes(type)) errors.notification_type = [`"${String(type)}" is not a valid choice.`];
  if (email === undefined) errors.email = ['This field is required.'];
  else if (typeof email !== 'string') errors.email = ['Not a valid string.'];
  else {
    const problems: string[] = [];
    if (!EMAIL.test(email)) problems.push('Enter a valid email address.');
    if (email.length > 254) problems.push('Ensure this field has no more than 254 characters.');
    if (problems.length > 0) errors.email = problems;
  }
  if (enabled !== undefined && typeof enabled !== 'boolean') errors.enabled = ['Must be a valid boolean.'];
  if (Object.keys(errors).length > 0) validationError(errors);
  return { notification_type: type as NotificationSettingRecord['notification_type'], email: email as string, ...(typeof enabled === 'boolean' ? { enabled } : {}) };
}

/** PATCH with the NotificationSettingsWrite body: notification_type and email required, enabled optional. */
function changeSetting(ctx: Ctx, setting: NotificationSettingRecord): Record<string, unknown> {
  const write = checkWrite(ctx);
  const before = renderNotificationSetting(setting);
  setting.notification_type = write.notification_type;
  setting.email = write.email;
  if (write.enabled !== undefined) setting.enabled = write.enabled;
  const after = renderNotificationSetting(setting);
  return Object.fromEntries(Object.entries(after).filter(([field, value]) => before[field] !== value));
}

/**
 * POST with the NotificationSettingsWrite body: 201 with the Read shape; enabled defaults to
 * true. The platform does not document that a type and e-mail are unique per reseller, so a
 * second equal setting is created too.
 */
function buildSetting(ctx: Ctx, reseller: number): Created<NotificationSettingRecord> {
  const write = checkWrite(ctx);
  let id = 1;
  for (const existing of ctx.state.notificationSettings.keys()) id = Math.max(id, existing + 1);
  const setting: NotificationSettingRecord = { id, reseller, notification_type: write.notification_type, email: write.email, enabled: write.enabled ?? true };
  return { record: setting, logged: renderNotificationSetting(setting) };
}

/**
 * A reseller's notification settings (iam_reseller_api.yaml): the list (`{count, next, previous,
 * results}`, `limit`/`offset` with links when `limit` is given, `ordering` by a field or
 * `-field`, an unknown one ignored), POST (201), GET one, PATCH, DELETE (204). A setting of
 * another reseller is not found.
 */
const notificationSettings = defineCollection<IamSlice, NotificationSettingRecord, number, { sortField: (typeof ORDER_FIELDS)[number]; sign: number }, 'integer'>({
  product: IAM_PRODUCT,
  path: '/iam/reselling/resellers/{resellerId}/notification_settings',
  idParam: 'notificationSettingsId',
  idSyntax: 'integer',
  noun: 'Notification setting',
  scope: (ctx) => pathInt(ctx, 'resellerId'),
  store: (ctx) => ctx.state.notificationSettings,
  inScope: (setting, reseller) => setting.reseller === reseller,
  idOf: (setting) => setting.id,
  mutationKind: 'notification_setting',
  list: {
    paging: offsetLimit({
      answer({ items, total, window: { offset, limit }, scope: reseller }) {
        const end = limit === undefined ? total : Math.min(total, offset + limit);
        const base = `reselling/resellers/${reseller}/notification_settings`;
        const next = limit !== undefined && end < total ? `${base}?offset=${end}&limit=${limit}` : null;
        const previous = limit !== undefined && offset > 0 ? `${base}?offset=${Math.max(0, offset - limit)}&limit=${limit}` : null;
        return { count: total, next, previous, results: items };
      },
    }),
    query(ctx) {
      const ordering = ctx.query.get('ordering');
      const field = ordering?.replace(/^-/, '');
      const sortField = field !== undefined && (ORDER_FIELDS as readonly string[]).includes(field) ? (field as (typeof ORDER_FIELDS)[number]) : 'id';
      return { sortField, sign: ordering?.startsWith('-') && sortField === field ? -1 : 1 };
    },
    order(a, b, { sortField, sign }) {
      const [ka, kb] = [a[sortField], b[sortField]];
      return (ka < kb ? -1 : ka > kb ? 1 : a.id - b.id) * sign;
    },
    render: renderNotificationSetting,
  },
  get: renderNotificationSetting,
  create: { build: buildSetting, answer: (setting) => jsonReply(201, renderNotificationSetting(setting)) },
  updates: [{ method: 'PATCH', change: changeSetting, answer: (setting) => jsonReply(200, renderNotificationSetting(setting)) }],
  delete: {},
});

/** The reseller notification setting routes (iam_reseller_api.yaml). */
export const iamRoutes: ServiceRoute<IamSlice>[] = notificationSettings.routes;
