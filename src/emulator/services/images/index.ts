import { z } from 'zod';
import { CLOUD_PRODUCT, cloudError, cloudPlacement, cloudUnpaged, placeIn, placementFixture, type CloudScope } from '../../cloud-common.js';
import { defineCollection } from '../../collection.js';
import { datetime, fixtureDate, int, listSection, uuid } from '../../fixture-parts.js';
import { formatOffsetDate } from '../../format.js';
import { fail } from '../../reply.js';
import type { RouteContext } from '../../router.js';
import { defineService } from '../../service.js';

/** An image of a region as held in memory (API field names; datetimes as epoch ms). */
export interface ImageRecord {
  id: string;
  project_id: number;
  region_id: number;
  region: string;
  name: string;
  /** public: every project of the region sees it; private: only its project. */
  visibility: 'public' | 'private';
  os_distro: string;
  os_version: string;
  min_disk: number;
  created_at: number;
}

/** The image service's slice of the state: images by id. */
export interface ImageSlice {
  readonly images: Map<string, ImageRecord>;
}

const imageFixture = z.strictObject({
  id: uuid,
  ...placementFixture,
  name: z.string().min(1),
  visibility: z.enum(['public', 'private']).default('public'),
  os_distro: z.string().min(1).default('ubuntu'),
  os_version: z.string().min(1).default('24.04'),
  min_disk: int.min(0).default(3),
  created_at: datetime.optional(),
});

/** Whether a project of a region sees an image: the region's public images and the project's own. */
const visibleIn = (image: ImageRecord, { projectId, regionId }: CloudScope) => image.region_id === regionId && (image.visibility === 'public' || image.project_id === projectId);

/** An image in the ImageSerializer shape. */
function renderImage(image: ImageRecord): Record<string, unknown> {
  const at = formatOffsetDate(image.created_at);
  return {
    id: image.id,
    name: image.name,
    description: null,
    project_id: image.project_id,
    region_id: image.region_id,
    region: image.region,
    status: 'active',
    visibility: image.visibility,
    min_disk: image.min_disk,
    min_ram: 0,
    os_distro: image.os_distro,
    os_version: image.os_version,
    os_type: 'linux',
    ssh_key: 'allow',
    display_order: null,
    created_at: at,
    updated_at: at,
    size: null,
    creator_task_id: null,
    task_id: null,
    disk_format: 'qcow2',
    is_baremetal: false,
    hw_firmware_type: null,
    hw_machine_type: null,
    architecture: 'x86_64',
    tags: [],
    gpu_driver: null,
    gpu_driver_version: null,
    gpu_driver_type: null,
    currency_code: null,
    price_per_hour: null,
    price_per_month: null,
    price_status: null,
  };
}

/** The images of a region a project sees (ImagesViewSet: `{count, results}`, unpaged) and GET one. */
export const images = defineCollection<ImageSlice, ImageRecord, CloudScope, undefined, 'uuid'>({
  product: CLOUD_PRODUCT,
  path: '/cloud/v1/images/{project_id}/{region_id}',
  idParam: 'image_id',
  idSyntax: 'uuid',
  noun: 'Image',
  scope: cloudPlacement,
  store: (ctx) => ctx.state.images,
  inScope: visibleIn,
  idOf: (image) => image.id,
  list: { paging: cloudUnpaged, render: renderImage },
  get: renderImage,
});

/**
 * Refuses a create that names an image the project does not see in the region (404 NotFoundError,
 * as the platform answers an instance's or a volume's `image_id` it cannot find).
 */
export function checkImage(ctx: RouteContext<ImageSlice>, scope: CloudScope, imageId: string, field: string): void {
  const image = ctx.state.images.get(imageId);
  if (image === undefined || !visibleIn(image, scope)) fail(cloudError(404, `${field}: Image ${imageId} not found in region ${scope.regionId}`, ctx.requestId));
}

/** Images of a region (public, or private to a project): list and get; what instances and volumes are made from. Fixtures: `images`. */
export const imagesService = defineService({
  product: CLOUD_PRODUCT,
  fixtures: { images: listSection(imageFixture) },
  fixtureIds: { images: (x) => x.id },
  createState: (): ImageSlice => ({ images: new Map() }),
  load(slice, { images: list }, world) {
    slice.images.clear();
    for (const x of list) {
      slice.images.set(x.id, {
        id: x.id,
        ...placeIn(world, x),
        name: x.name,
        visibility: x.visibility,
        os_distro: x.os_distro,
        os_version: x.os_version,
        min_disk: x.min_disk,
        created_at: fixtureDate(x.created_at),
      });
    }
  },
  dump: (state) => ({ images: [...state.images.values()] }),
  routes: images.routes,
  mutationKinds: [],
  taskTargets: [],
});
