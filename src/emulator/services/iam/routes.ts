import { isPlainObject, parseIntStrict } from '../../format.js';
import { emptyReply, fail, jsonReply, type Reply } from '../../reply.js';
import type { RouteContext, ServiceRoute } from '../../router.js';
import type { IamSlice, NotificationSettingRecord } from './index.js';

type Ctx = RouteContext<IamSlice>;

const LIST = '/iam/reselling/resellers/{resellerId}/notification_settings';
const ONE = `${LIST}/{notificationSettingsId}`;
/** The kinds of notification a reseller can set. */
export const NOTIFICATION_TYPES = ['deletion_request', 'failed_login'] as const;
// The same address check as ajv-formats' `email`, so the emulator accepts what the vendor schema accepts.
const EMAIL = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i;
const ORDER_FIELDS = ['id', 'reseller', 'notification_type', 'email', 'enabled'] as const;

function validationError(errors: Record<string, string[]>): never {
  return fail(jsonReply(400, { errors }));
}

function notFound(): never {
  return fail(jsonReply(404, { detail: 'Not found.' }));
}

function pathInt(ctx: Ctx, name: string): number {
  const text = ctx.params[name] ?? '';
  const value = parseIntStrict(text);
  if (value === undefined) validationError({ [name]: ['A valid integer is required.'] });
  return value;
}

function queryInt(ctx: Ctx, name: string, min: number): number | undefined {
  const text = ctx.query.get(name);
  if (text === null || text === '') return undefined;
  const value = parseIntStrict(text);
  if (value === undefined || value < min) validationError({ [name]: ['A valid integer is required.'] });
  return value;
}

/** A notification setting in the NotificationSettingsRead shape. */
export function renderNotificationSetting(s: NotificationSettingRecord): Record<string, unknown> {
  return { id: s.id, reseller: s.reseller, notification_type: s.notification_type, email: s.email, enabled: s.enabled };
}

function findSetting(ctx: Ctx): NotificationSettingRecord {
  const resellerId = pathInt(ctx, 'resellerId');
  const id = pathInt(ctx, 'notificationSettingsId');
  const setting = ctx.state.notificationSettings.get(id);
  if (!setting || setting.reseller !== resellerId) notFound();
  return setting;
}

function listSettings(ctx: Ctx): Reply {
  const resellerId = pathInt(ctx, 'resellerId');
  const limit = queryInt(ctx, 'limit', 1);
  const offset = queryInt(ctx, 'offset', 0) ?? 0;
  const ordering = ctx.query.get('ordering');
  const all = [...ctx.state.notificationSettings.values()].filter((s) => s.reseller === resellerId);
  const field = ordering?.replace(/^-/, '');
  const sortField = field !== undefined && (ORDER_FIELDS as readonly string[]).includes(field) ? (field as (typeof ORDER_FIELDS)[number]) : 'id';
  const sign = ordering?.startsWith('-') && sortField === field ? -1 : 1;
  all.sort((a, b) => {
    const ka = a[sortField];
    const kb = b[sortField];
    return (ka < kb ? -1 : ka > kb ? 1 : a.id - b.id) * sign;
  });
  const end = limit === undefined ? all.length : Math.min(all.length, offset + limit);
  const base = `reselling/resellers/${resellerId}/notification_settings`;
  const next = limit !== undefined && end < all.length ? `${base}?offset=${end}&limit=${limit}` : null;
  const previous = limit !== undefined && offset > 0 ? `${base}?offset=${Math.max(0, offset - limit)}&limit=${limit}` : null;
  return jsonReply(200, { count: all.length, next, previous, results: all.slice(offset, end).map(renderNotificationSetting) });
}

function getSetting(ctx: Ctx): Reply {
  return jsonReply(200, renderNotificationSetting(findSetting(ctx)));
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
function patchSetting(ctx: Ctx): Reply {
  const setting = findSetting(ctx);
  const write = checkWrite(ctx);
  const before = renderNotificationSetting(setting);
  setting.notification_type = write.notification_type;
  setting.email = write.email;
  if (write.enabled !== undefined) setting.enabled = write.enabled;
  const after = renderNotificationSetting(setting);
  const changed = Object.fromEntries(Object.entries(after).filter(([field, value]) => before[field] !== value));
  if (Object.keys(changed).length > 0) ctx.state.recordMutation(ctx.now, 'notification_setting', setting.id, 'update', changed);
  return jsonReply(200, renderNotificationSetting(setting));
}

/**
 * POST with the NotificationSettingsWrite body: 201 with the Read shape; enabled defaults to
 * true. The platform does not document that a type and e-mail are unique per reseller, so a
 * second equal setting is created too.
 */
function createSetting(ctx: Ctx): Reply {
  const reseller = pathInt(ctx, 'resellerId');
  const write = checkWrite(ctx);
  let id = 1;
  for (const existing of ctx.state.notificationSettings.keys()) id = Math.max(id, existing + 1);
  const setting: NotificationSettingRecord = { id, reseller, notification_type: write.notification_type, email: write.email, enabled: write.enabled ?? true };
  ctx.state.notificationSettings.set(id, setting);
  ctx.state.recordMutation(ctx.now, 'notification_setting', id, 'create', renderNotificationSetting(setting));
  return jsonReply(201, renderNotificationSetting(setting));
}

/** DELETE: 204, no body; 404 for a setting the reseller does not have. */
function deleteSetting(ctx: Ctx): Reply {
  const setting = findSetting(ctx);
  ctx.state.notificationSettings.delete(setting.id);
  ctx.state.recordMutation(ctx.now, 'notification_setting', setting.id, 'delete');
  return emptyReply(204);
}

/** The reseller notification setting routes (iam_reseller_api.yaml): list, POST (201), GET one, PATCH, DELETE (204). */
export const iamRoutes: ServiceRoute<IamSlice>[] = [
  { method: 'GET', pattern: LIST, handler: listSettings },
  { method: 'POST', pattern: LIST, handler: createSetting },
  { method: 'GET', pattern: ONE, handler: getSetting },
  { method: 'PATCH', pattern: ONE, handler: patchSetting },
  { method: 'DELETE', pattern: ONE, handler: deleteSetting },
];
