import { z } from 'zod';
import { listSection, positiveInt } from '../../fixture-parts.js';
import { jsonReply, type ApiProduct } from '../../reply.js';
import { defineService } from '../../service.js';
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

/** The IAM API (Django REST framework): 400 `{"message"}` (a refused field: `{"errors": {field: [...]}}`), other errors `{"detail"}`. */
export const IAM_PRODUCT: ApiProduct = {
  pathPrefix: '/iam/',
  error: (status, message) => (status === 400 ? jsonReply(400, { message }) : jsonReply(status, { detail: message })),
  notFound: () => jsonReply(404, { detail: 'Not found.' }),
  invalidParam: ({ name }) => jsonReply(400, { errors: { [name]: ['A valid integer is required.'] } }),
  blankQueryIsAbsent: true,
  methodNotAllowedMessage: (method) => `Method "${method}" not allowed.`,
  invalidJsonMessage: (detail) => `JSON parse error - ${detail}`,
};

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
