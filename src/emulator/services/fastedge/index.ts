import { z } from 'zod';
import { int, listSection, positiveInt } from '../../fixture-parts.js';
import { defineService } from '../../service.js';
import { FASTEDGE_PRODUCT } from './product.js';
import { fastedgeRoutes } from './routes.js';

/** A FastEdge app (app_short fields plus the app's settings). */
export interface FastEdgeAppRecord {
  id: number;
  name: string;
  status: number;
  binary: number;
  plan_id: number;
  plan: string;
  api_type: string;
  url: string;
  comment: string;
  template?: number | undefined;
  template_name?: string | undefined;
  env: Record<string, string>;
  rsp_headers: Record<string, string>;
  networks: string[];
}

/** The FastEdge service's slice of the state. */
export interface FastEdgeSlice {
  readonly fastedgeApps: Map<number, FastEdgeAppRecord>;
}

const appFixture = z.strictObject({
  id: positiveInt,
  name: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]*[a-z0-9]$/, 'app names are lowercase letters, digits and dashes')
    .max(64),
  status: int.min(0).max(5).default(1),
  binary: positiveInt.default(1),
  plan_id: positiveInt.default(1),
  plan: z.string().default('basic'),
  api_type: z.enum(['wasi-http', 'proxy-wasm']).default('wasi-http'),
  url: z.string().optional(),
  comment: z.string().max(1024).default(''),
  template: positiveInt.optional(),
  template_name: z.string().optional(),
  env: z.record(z.string(), z.string()).default({}),
  rsp_headers: z.record(z.string(), z.string()).default({}),
  networks: z.array(z.string()).default([]),
});

/** FastEdge apps: list `{apps, count}`, GET one, GET by-name, POST, PATCH, DELETE (204). Fixtures: `fastedge_apps`. */
export const fastedgeService = defineService({
  product: FASTEDGE_PRODUCT,
  fixtures: { fastedge_apps: listSection(appFixture) },
  fixtureIds: { fastedge_apps: (x) => x.id },
  createState: (): FastEdgeSlice => ({ fastedgeApps: new Map() }),
  load(slice, { fastedge_apps }) {
    slice.fastedgeApps.clear();
    for (const x of fastedge_apps) {
      slice.fastedgeApps.set(x.id, {
        id: x.id,
        name: x.name,
        status: x.status,
        binary: x.binary,
        plan_id: x.plan_id,
        plan: x.plan,
        api_type: x.api_type,
        url: x.url ?? `https://${x.name}.fastedge.app`,
        comment: x.comment,
        template: x.template,
        template_name: x.template_name,
        env: { ...x.env },
        rsp_headers: { ...x.rsp_headers },
        networks: [...x.networks],
      });
    }
  },
  dump: (state) => ({ fastedge_apps: [...state.fastedgeApps.values()] }),
  routes: fastedgeRoutes,
  mutationKinds: ['fastedge_app'],
  taskTargets: [],
});
