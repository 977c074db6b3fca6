import { z } from 'zod';
import { apiPath } from '../../api/path.js';
import { type KindList, type ResellerScope } from '../kind-list.js';

/** The fields of a notification setting answer (NotificationSettingsRead) edgeform reads. */
export const settingAnswer = z.looseObject({
  id: z.number().int(),
  notification_type: z.string(),
  email: z.string(),
  enabled: z.boolean(),
});

/** A notification setting as edgeform reads it. */
export type Setting = z.infer<typeof settingAnswer>;

/** A page of a reseller's notification settings (NotificationSettingsPaginatedArray). */
const settingPage = z.looseObject({ count: z.int().min(0), results: z.array(settingAnswer) });

/** A reseller's notification settings (`limit`/`offset`, by id): grouped reads and import page through it. */
export const settingList: KindList<ResellerScope, Setting> = {
  paging: { kind: 'offset', maxPageSize: 1000 },
  path: (s) => apiPath`/iam/reselling/resellers/${s.reseller_id}/notification_settings`,
  async fetchPage(ctx, s, { limit, offset }) {
    const query = { limit, offset, ordering: 'id' };
    const page = (await ctx.api.get(settingList.path(s), { schema: settingPage, query, signal: ctx.signal })).body;
    return { items: page.results, total: page.count };
  },
};
