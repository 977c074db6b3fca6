import { z } from 'zod';
import { listSection, positiveInt } from '../../fixture-parts.js';
import { defineService } from '../../service.js';
import { IAM_PRODUCT } from './product.js';
import { NOTIFICATION_TYPES, iamRoutes } from './routes.js';

/** A reseller notification setting (the Read shape). */
export interface NotificationSettingRecord {
  id: number;
  reseller: number;
  notification_type: (typeof NOTIFICATION_TYPES)[number];
  email: string;
  enabled: boolean;
}

/** The IAM service's slice of the state. */
export interface IamSlice {
  readonly notificationSettings: Map<number, NotificationSettingRecord>;
}

const notificationSettingFixture = z.strictObject({
  id: positiveInt,
  reseller: positiveInt,
  notification_type: z.enum(NOTIFICATION_TYPES),
  email: z.string().max(254),
  enabled: z.boolean().default(true),
});

/** IAM reseller notification settings: list, POST, GET one, PATCH, DELETE. Fixtures: `notification_settings`. */
export const iamService = defineService({
  product: IAM_PRODUCT,
  fixtures: { notification_settings: listSection(notificationSettingFixture) },
  fixtureIds: { notification_settings: (x) => x.id },
  createState: (): IamSlice => ({ notificationSettings: new Map() }),
  load(slice, { notification_settings }) {
    slice.notificationSettings.clear();
    for (const x of notification_settings) slice.notificationSettings.set(x.id, { ...x });
  },
  dump: (state) => ({ notification_settings: [...state.notificationSettings.values()] }),
  routes: iamRoutes,
  mutationKinds: ['notification_setting'],
  taskTargets: [],
});
