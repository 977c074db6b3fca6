import { describe, expect, it } from 'vitest';
import type { ResourceBlock } from '../../../src/config/types.js';
import { cloudQuotaLimitRequest } from '../../../src/kinds/cloud-quota-limit-request/provider.js';
import { fastedgeApp } from '../../../src/kinds/fastedge-app/provider.js';
import { iamResellerNotificationSetting } from '../../../src/kinds/iam-reseller-notification-setting/provider.js';
import { bindProvider, type Observation, type ProviderContext } from '../../../src/kinds/provider.js';
import { providers } from '../../../src/kinds/providers.js';
import { deletableTypes, type DeletableType } from '../../../src/kinds/registry.js';
import { streamingPlayer } from '../../../src/kinds/streaming-player/provider.js';
import { streamingVideoSubtitle } from '../../../src/kinds/streaming-video-subtitle/provider.js';
import type { ResourceChange } from '../../../src/plan/types.js';
import { type TestEmulator } from '../../helpers/emulator.js';
import { planChange, routesSeen, type ProviderHarness, useProviderHarness } from '../../helpers/providers.js';
import { resource } from '../../helpers/stack.js';
import { REF } from '../../helpers/ref.js';

let emu: TestEmulator;
let h: ProviderHarness;

useProviderHarness((e, harness) => ([emu, h] = [e, harness]));

/**
 * One kind edgeform can delete, on the demo world: the object to delete, another that stays,
 * and what a read of the first observes.
 */
interface DeletableCase {
  type: DeletableType;
  /** The GET and DELETE route. */
  route: string;
  /** A block of the kind for an id. */
  block: (id: number, ensure: 'present' | 'absent') => ResourceBlock;
  /** Reads the object with this id through the kind's provider. */
  read: (ctx: ProviderContext, id: number) => Promise<Observation>;
  id: number;
  /** Another object of the kind, which a delete must leave alone. */
  otherId: number;
  /** What the plan of a delete shows of the object (`before`). */
  observed: Record<string, unknown>;
  /** What a read observes, when it is more than `observed` (a kind edgeform also creates and updates reads every setting). */
  state?: Record<string, unknown>;
  /** How the 404 for an unknown id looks (FastEdge answers with no body at all). */
  notFound: string;
  /** The Retry-After the 429 test asks for, in seconds. */
  retryAfter: number;
  /** The emulator's objects of this kind, by id. */
  live: () => Pick<Map<number, unknown>, 'has' | 'delete'>;
}

const cases: DeletableCase[] = [
  {
    type: 'fastedge_app',
    route: '/fastedge/v1/apps/{app_id}',
    block: (app_id, ensure) => resource('fastedge_app', 'legacy_app', { app_id, ensure }),
    read: (ctx, app_id) => fastedgeApp.read(ctx, { app_id, ensure: 'present' }, REF),
    id: 1234,
    otherId: 1300,
    observed: { app_id: 1234, name: 'legacy-app', status: 1 },
    state: { app_id: 1234, name: 'legacy-app', status: 1, binary: 501, comment: 'old edge app, to be removed', url: 'https://legacy-app.fastedge.app' },
    notFound: '404 with no body',
    retryAfter: 4,
    live: () => emu.state.fastedgeApps,
  },
  {
    type: 'streaming_player',
    route: '/streaming/players/{player_id}',
    block: (player_id, ensure) => resource('streaming_player', 'old_player', { player_id, ensure }),
    read: (ctx, player_id) => streamingPlayer.read(ctx, { player_id, ensure: 'present' }, REF),
    id: 55,
    otherId: 60,
    observed: { player_id: 55, name: 'old-player' },
    state: {
      player_id: 55,
      name: 'old-player',
      ...{ framework: null, design: null, custom_css: null, js_url: null, skin_is_url: null, bg_color: null, fg_color: null, text_color: null, hover_color: null },
      ...{ autoplay: false, mute: false, disable_skin: false, save_options_to_cookies: true, show_sharing: true, logo_position: null, speed_control: false, logo: null },
    },
    notFound: '404',
    retryAfter: 5,
    live: () => emu.state.players,
  },
  {
    type: 'cloud_quota_limit_request',
    route: '/cloud/v2/limits_request/{request_id}',
    block: (request_id, ensure) => resource('cloud_quota_limit_request', 'stale_request', { request_id, ensure }),
    read: (ctx, request_id) => cloudQuotaLimitRequest.read(ctx, { request_id, ensure: 'present' }, REF),
    id: 42,
    otherId: 43,
    observed: { request_id: 42, status: 'in progress', description: 'More vCPUs for the staging project' },
    state: {
      request_id: 42,
      status: 'in progress',
      description: 'More vCPUs for the staging project',
      requested_limits: { regional_limits: [{ region_id: 76, cpu_count_limit: 64, ram_limit: 131072 }] },
    },
    notFound: '404',
    retryAfter: 6,
    live: () => emu.state.quotaRequests,
  },
  {
    type: 'iam_reseller_notification_setting',
    route: '/iam/reselling/resellers/{resellerId}/notification_settings/{notificationSettingsId}',
    block: (notification_settings_id, ensure) =>
      resource('iam_reseller_notification_setting', 'billing', {
        reseller_id: 7,
        notification_settings_id,
        notification_type: 'deletion_request',
        email: 'billing@example.com',
        ensure,
      }),
    read: (ctx, notification_settings_id) =>
      iamResellerNotificationSetting.read(
        ctx,
        { reseller_id: 7, notification_settings_id, notification_type: 'deletion_request', email: 'billing@example.com', ensure: 'present' },
        REF,
      ),
    id: 4,
    otherId: 3,
    observed: { notification_settings_id: 4, notification_type: 'deletion_request', email: 'billing@example.com', enabled: true },
    notFound: '404',
    retryAfter: 3,
    live: () => emu.state.notificationSettings,
  },
  {
    type: 'streaming_video_subtitle',
    route: '/streaming/videos/{video_id}/subtitles/{id}',
    block: (subtitle_id, ensure) => resource('streaming_video_subtitle', 'english', { video_id: 9876, subtitle_id, language: 'eng', ensure }),
    read: (ctx, subtitle_id) => streamingVideoSubtitle.read(ctx, { video_id: 9876, subtitle_id, language: 'eng', ensure: 'present' }, REF),
    id: 1000,
    otherId: 1001,
    observed: { subtitle_id: 1000, video_id: 9876, language: 'eng', name: 'English' },
    state: { subtitle_id: 1000, video_id: 9876, language: 'eng', name: 'English', vtt: 'WEBVTT\n\n1\n00:00:01.000 --> 00:00:04.000\nWelcome to the keynote.\n' },
    notFound: '404',
    retryAfter: 2,
    live: () => {
      const video = emu.state.videos.get(9876)!;
      return {
        has: (id: number) => video.subtitles.some((s) => s.id === id),
        delete: (id: number) => {
          video.subtitles = video.subtitles.filter((s) => s.id !== id);
          return true;
        },
      };
    },
  },
];

/** Deletable kinds whose deletes are tested in a file of their own (their ids are not integers, or the delete starts tasks). */
const TESTED_ELSEWHERE: Partial<Record<DeletableType, string>> = {
  cloud_floating_ip: 'test/integration/providers/cloud-floating-ip-lifecycle.test.ts',
  dns_zone: 'test/integration/cli/dns.test.ts',
  cdn_origin_group: 'test/integration/cli/cdn-lifecycle.test.ts',
  cdn_resource: 'test/integration/cli/cdn-lifecycle.test.ts',
  cdn_rule: 'test/integration/cli/cdn-lifecycle.test.ts',
  dns_rrset: 'test/integration/cli/dns.test.ts',
  cloud_instance: 'test/integration/providers/cloud-instance-lifecycle.test.ts',
  cloud_network: 'test/integration/cli/network-chain.test.ts',
  cloud_subnet: 'test/integration/cli/network-chain.test.ts',
  cloud_ssh_key: 'test/integration/cli/network-chain.test.ts',
  cloud_security_group: 'test/integration/cli/security-group-volume-lifecycle.test.ts',
  cloud_volume: 'test/integration/cli/security-group-volume-lifecycle.test.ts',
  cloud_load_balancer: 'test/integration/cli/load-balanced.test.ts',
  cloud_lb_listener: 'test/integration/cli/load-balanced.test.ts',
  cloud_lb_pool: 'test/integration/cli/load-balanced.test.ts',
  cloud_lb_l7policy: 'test/integration/cli/load-balanced.test.ts',
  cloud_secret: 'test/integration/cli/load-balanced.test.ts',
};

it('covers every kind edgeform can delete (here or in the file named for it)', () => {
  expect([...cases.map((c) => c.type), ...(Object.keys(TESTED_ELSEWHERE) as DeletableType[])].sort()).toEqual([...deletableTypes()].sort());
});

describe.each(cases)('$type', ({ route, block, read, id, otherId, observed, state, notFound, retryAfter, live }) => {
  const absent = () => block(id, 'absent');
  /** Applies a change through its kind's provider, as the executor does. */
  const apply = (change: ResourceChange) => bindProvider(providers.resources, change, REF.stack).apply(h.ctx);

  describe('read', () => {
    it('observes the fields `before` shows', async () => {
      expect(await read(h.ctx, id)).toEqual({ exists: true, state: state ?? observed });
    });

    it(`answers an id the platform does not know (${notFound}) as not existing`, async () => {
      expect(await read(h.ctx, 9999)).toEqual({ exists: false });
    });

    it('retries a 503 once with one recorded backoff and then reads the object', async () => {
      emu.faults.failNext({ method: 'GET', path: route, status: 503, count: 1 });
      expect((await read(h.ctx, id)).exists).toBe(true);
      expect(h.retryDelays).toEqual([250]);
    });

    it('waits exactly as long as a 429 Retry-After asks before reading again', async () => {
      emu.faults.failNext({ method: 'GET', path: route, status: 429, retryAfter });
      expect((await read(h.ctx, id)).exists).toBe(true);
      expect(h.retryDelays).toEqual([retryAfter * 1000]);
    });
  });

  describe('apply', () => {
    it('deletes an object planned for deletion, and the platform no longer has it', async () => {
      const change = await planChange(h.ctx, absent());
      expect(change.action).toBe('delete');
      expect(change.before).toEqual(observed);
      await apply(change);
      expect(live().has(id)).toBe(false);
      expect(live().has(otherId)).toBe(true);
      expect((await planChange(h.ctx, absent())).action).toBe('no-op');
    });

    it('counts a 404 on delete as done: someone deleted the object since the plan', async () => {
      const change = await planChange(h.ctx, absent());
      live().delete(id);
      await expect(apply(change)).resolves.toBeUndefined();
      expect(emu.requests.filter((r) => r.method === 'DELETE').map((r) => r.status)).toEqual([404]);
    });

    it('finishes a delete whose answer was lost: the retried DELETE finds the object gone (404) and counts it done', async () => {
      emu.faults.dropNext({ method: 'DELETE', path: route, when: 'after' });
      const change = await planChange(h.ctx, absent());
      await expect(apply(change)).resolves.toBeUndefined();
      expect(emu.requests.filter((r) => r.method === 'DELETE').map((r) => r.status)).toEqual([0, 404]);
      expect(live().has(id)).toBe(false);
    });

    it('plans an object that is already gone as a no-op noted "already absent"', async () => {
      live().delete(id);
      const change = await planChange(h.ctx, absent());
      expect(change).toMatchObject({ action: 'no-op', before: null, notes: ['already absent'] });
      expect(routesSeen(emu)).toEqual([`GET ${route}`]);
    });

    it('refuses an update (a tampered plan) instead of deleting the object', async () => {
      const change = await planChange(h.ctx, absent());
      await expect(apply({ ...change, action: 'update' })).rejects.toMatchObject({ code: 'EDGEFORM_PLAN_PAYLOAD' });
      expect(emu.requests.filter((r) => r.method === 'DELETE')).toEqual([]);
      expect(live().has(id)).toBe(true);
    });
  });
});
