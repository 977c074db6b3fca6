/**
 * Contract test of the region's images against the vendor OpenAPI (test/fixtures/openapi/cloud_api.yaml):
 * the list and a single image answer as the spec says; a project sees the region's public images
 * and its own private ones; an instance or a volume made from an image the project does not see
 * in the region is refused 404 in the cloud's error shape, and nothing is made.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { expectDocumentedAnswer } from '../../helpers/openapi.js';

const CLOUD = 'cloud_api.yaml';
const LIST = '/cloud/v1/images/{project_id}/{region_id}';
const ONE = `${LIST}/{image_id}`;
const PUBLIC = '0a1b2c3d-0000-4000-8000-0000000000aa';
const PRIVATE = '66666666-0000-4000-8000-000000000001';
const ELSEWHERE = '66666666-0000-4000-8000-000000000002';

describe('images: the emulator against the vendor OpenAPI', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator({
      taskDurationMs: 0,
      fixtures: {
        flavors: [{ flavor_id: 'g2-standard-2-4' }],
        images: [
          { id: PUBLIC, name: 'ubuntu-24.04-x64' },
          { id: PRIVATE, name: 'golden', visibility: 'private', project_id: 1 },
          { id: ELSEWHERE, name: 'other-region', region_id: 77 },
        ],
      },
    });
  });
  beforeEach(() => emu.reset());
  afterAll(() => emu.close());

  it('lists the public images of the region and the project’s own, and gets one', async () => {
    const listed = await expectDocumentedAnswer(emu, CLOUD, 'GET', LIST, '/cloud/v1/images/1/76', 200);
    expect(listed.results.map((i: { id: string }) => i.id).sort()).toEqual([PUBLIC, PRIVATE]);
    expect(listed.count).toBe(2);
    expect((await expectDocumentedAnswer(emu, CLOUD, 'GET', LIST, '/cloud/v1/images/2/76', 200)).results.map((i: { id: string }) => i.id)).toEqual([PUBLIC]);
    expect((await expectDocumentedAnswer(emu, CLOUD, 'GET', ONE, `/cloud/v1/images/1/76/${PUBLIC}`, 200)).name).toBe('ubuntu-24.04-x64');
    expect((await emu.call('GET', `/cloud/v1/images/1/76/${ELSEWHERE}`)).status).toBe(404);
  });

  it('refuses an instance or a volume made from an image the project does not see in the region: 404 NotFoundError, nothing made', async () => {
    const instance = await emu.call('POST', '/cloud/v2/instances/1/76', {
      body: { flavor: 'g2-standard-2-4', interfaces: [{ type: 'external' }], volumes: [{ source: 'image', image_id: ELSEWHERE, boot_index: 0 }] },
    });
    expect(instance.status).toBe(404);
    expect(instance.body).toMatchObject({ exception_class: 'NotFoundError', message: `volumes.0.image_id: Image ${ELSEWHERE} not found in region 76` });
    const volume = await emu.call('POST', '/cloud/v1/volumes/1/76', { body: { source: 'image', name: 'boot', size: 10, image_id: ELSEWHERE } });
    expect(volume.status).toBe(404);
    expect(volume.body).toMatchObject({ exception_class: 'NotFoundError', message: `image.image_id: Image ${ELSEWHERE} not found in region 76` });
    expect(emu.mutations).toEqual([]);
    expect([...emu.state.volumes.values()].filter((v) => v.name === 'boot')).toEqual([]);
  });
});
