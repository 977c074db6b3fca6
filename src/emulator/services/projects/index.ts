import { z } from 'zod';
import { CLOUD_PRODUCT } from '../../cloud-common.js';
import { datetime, fixtureDate, listSection, positiveInt } from '../../fixture-parts.js';
import { defineService } from '../../service.js';
import { projectRoutes, REGION_STATES, ZONES } from './routes.js';

/** A cloud project of the account (ProjectSerializer). */
export interface ProjectRecord {
  id: number;
  client_id: number;
  name: string;
  description: string | null;
  is_default: boolean;
  state: string;
  created_at: number;
  deleted_at: number | null;
}

/** A cloud region (RegionSerializer; the emulator holds the fields a client may read). */
export interface RegionRecord {
  id: number;
  display_name: string;
  keystone_name: string;
  slug: string;
  country: string;
  zone: (typeof ZONES)[number] | null;
  state: (typeof REGION_STATES)[number];
  access_level: 'core' | 'edge';
  has_k8s: boolean;
  created_at: number;
}

/** The projects service's slice of the state: the account's projects and the platform's regions. */
export interface ProjectSlice {
  readonly projects: Map<number, ProjectRecord>;
  readonly regions: Map<number, RegionRecord>;
}

const projectFixture = z.strictObject({
  id: positiveInt,
  name: z.string().min(1),
  description: z.string().max(255).nullable().default(null),
  is_default: z.boolean().default(false),
  state: z.string().default('ACTIVE'),
  created_at: datetime.optional(),
  deleted_at: datetime.nullable().default(null),
});

const regionFixture = z.strictObject({
  id: positiveInt,
  display_name: z.string().min(1),
  keystone_name: z.string().optional(),
  slug: z.string().optional(),
  country: z
    .string()
    .regex(/^\w{2}$/, 'a two-letter country code')
    .default('LU'),
  zone: z.enum(ZONES).nullable().default('EMEA'),
  state: z.enum(REGION_STATES).default('ACTIVE'),
  access_level: z.enum(['core', 'edge']).default('core'),
  has_k8s: z.boolean().default(true),
  created_at: datetime.optional(),
});

/**
 * Cloud projects and regions: GET /cloud/v1/projects and GET /cloud/v1/regions, the lists that
 * `edgeform import --all` walks. Fixtures: `projects` and `regions`; when a section is empty it
 * holds the world's project (named "default", the default project) or region (`defaults.region`).
 */
export const projectsService = defineService({
  product: CLOUD_PRODUCT,
  fixtures: { projects: listSection(projectFixture), regions: listSection(regionFixture) },
  fixtureIds: { projects: (x) => x.id, regions: (x) => x.id },
  createState: (): ProjectSlice => ({ projects: new Map(), regions: new Map() }),
  load(slice, { projects, regions }, world) {
    slice.projects.clear();
    slice.regions.clear();
    const projectList = projects.length > 0 ? projects : [projectFixture.parse({ id: world.project_id, name: 'default', is_default: true })];
    for (const x of projectList) {
      slice.projects.set(x.id, {
        id: x.id,
        client_id: world.client_id,
        name: x.name,
        description: x.description,
        is_default: x.is_default,
        state: x.state,
        created_at: fixtureDate(x.created_at),
        deleted_at: x.deleted_at === null ? null : fixtureDate(x.deleted_at),
      });
    }
    const regionList = regions.length > 0 ? regions : [regionFixture.parse({ id: world.region_id, display_name: world.region })];
    for (const x of regionList) {
      const slug = x.slug ?? x.display_name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
      slice.regions.set(x.id, {
        id: x.id,
        display_name: x.display_name,
        keystone_name: x.keystone_name ?? `ED-${x.id}`,
        slug,
        country: x.country,
        zone: x.zone,
        state: x.state,
        access_level: x.access_level,
        has_k8s: x.has_k8s,
        created_at: fixtureDate(x.created_at),
      });
    }
  },
  dump: (state) => ({ projects: [...state.projects.values()], regions: [...state.regions.values()] }),
  routes: projectRoutes,
  mutationKinds: [],
  taskTargets: [],
});
