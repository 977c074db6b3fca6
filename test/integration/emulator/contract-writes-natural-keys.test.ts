/**
 * Contract tests of the emulator's write operations for the kinds found by a natural key
 * (video subtitles, reseller notification settings, quota limit requests): every answer
 * validates against the vendor's OpenAPI response schema of the same operation and status, and
 * the sample requests the vendor's request schema accepts are accepted, those it refuses are
 * refused (with the vendor's error shape). Also: the quota limit names edgeform validates
 * offline are exactly the vendor's.
 */
import { describe, expect, it } from 'vitest';
import { GLOBAL_LIMIT_FIELDS, REGIONAL_LIMIT_FIELDS } from '../../../src/kinds/cloud-quota-limit-request/schema.js';
import { type TestEmulator, useTestEmulator } from '../../helpers/emulator.js';
import { componentValidator, expectValid, loadSpec, requestValidator, responseValidator } from '../../helpers/openapi.js';

const CLOUD = 'cloud_api.yaml';
const STREAMING = 'streaming_api.yaml';
const IAM = 'iam_reseller_api.yaml';

const P = {
  subtitles: '/streaming/videos/{video_id}/subtitles',
  subtitle: '/streaming/videos/{video_id}/subtitles/{id}',
  settings: '/iam/reselling/resellers/{resellerId}/notification_settings',
  setting: '/iam/reselling/resellers/{resellerId}/notification_settings/{notificationSettingsId}',
  quotas: '/cloud/v2/limits_request',
  quota: '/cloud/v2/limits_request/{request_id}',
};

const VTT = 'WEBVTT\n\n1\n00:00:01.000 --> 00:00:04.000\nBonjour.\n';

let emu: TestEmulator;
useTestEmulator((started) => (emu = started));

/** Sends a request the vendor's request schema judges `valid` (or not), and checks the emulator agrees and answers in the documented shape. */
async function expectCall(file: string, method: string, template: string, path: string, status: number, body?: unknown, validBody?: boolean): Promise<any> {
  if (body !== undefined && validBody !== undefined) expect(requestValidator(file, method, template)(body), 'the vendor schema judges the sample body').toBe(validBody);
  const res = await emu.call(method, path, body === undefined ? {} : { body });
  expect(res.status, res.text).toBe(status);
  // The IAM 400 is a oneOf of two open schemas that every object matches both of: checked by component instead.
  if (status === 204) expect(res.text).toBe('');
  else if (!(file === IAM && status === 400)) expectValid(responseValidator(file, method, template, status), res.body);
  return res.body;
}

describe('video subtitles (streaming_api.yaml)', () => {
  it('POST answers 200 with a subtitle', async () => {
    const body = await expectCall(STREAMING, 'POST', P.subtitles, '/streaming/videos/9876/subtitles', 200, { language: 'fre', name: 'Français', vtt: VTT }, true);
    expect(body).toEqual({ id: 1003, name: 'Français', language: 'fre', vtt: VTT });
  });
  it('POST without language is refused by the schema and answered 422 subtitleerror422', () =>
    expectCall(STREAMING, 'POST', P.subtitles, '/streaming/videos/9876/subtitles', 422, { name: 'x', vtt: VTT }, false));
  it('POST with an unknown language code answers 422 subtitleerror422', () =>
    expectCall(STREAMING, 'POST', P.subtitles, '/streaming/videos/9876/subtitles', 422, { language: 'french', vtt: VTT }, true));
  it('POST with a language that is not a string is refused by the schema and answered 422', () =>
    expectCall(STREAMING, 'POST', P.subtitles, '/streaming/videos/9876/subtitles', 422, { language: 7, vtt: VTT }, false));
  it('POST to an unknown video answers 404 notfound', () => expectCall(STREAMING, 'POST', P.subtitles, '/streaming/videos/1/subtitles', 404, { language: 'fre', vtt: VTT }, true));
  it('GET one answers 200 with a subtitle', () => expectCall(STREAMING, 'GET', P.subtitle, '/streaming/videos/9876/subtitles/1000', 200));
  it('GET an unknown one answers 404 notfound', () => expectCall(STREAMING, 'GET', P.subtitle, '/streaming/videos/9876/subtitles/9', 404));
  it('PATCH answers 200 with subtitlePatched', async () => {
    const body = await expectCall(STREAMING, 'PATCH', P.subtitle, '/streaming/videos/9876/subtitles/1000', 200, { name: 'English (edited)', vtt: VTT }, true);
    expect(body).toEqual({ name: 'English (edited)', language: 'eng', vtt: VTT });
  });
  it('PATCH with a text that is not a string is refused by the schema and answered 422', () =>
    expectCall(STREAMING, 'PATCH', P.subtitle, '/streaming/videos/9876/subtitles/1000', 422, { vtt: ['WEBVTT'] }, false));
  it('PATCH an unknown one answers 404 notfound', () => expectCall(STREAMING, 'PATCH', P.subtitle, '/streaming/videos/9876/subtitles/9', 404, { name: 'x' }, true));
  it('DELETE answers 204 with no body, then the subtitle is gone (404)', async () => {
    await expectCall(STREAMING, 'DELETE', P.subtitle, '/streaming/videos/9876/subtitles/1001', 204);
    await expectCall(STREAMING, 'DELETE', P.subtitle, '/streaming/videos/9876/subtitles/1001', 404);
  });
});

describe('reseller notification settings (iam_reseller_api.yaml)', () => {
  const list = '/iam/reselling/resellers/7/notification_settings';
  it('POST answers 201 with NotificationSettingsRead', async () => {
    const body = await expectCall(IAM, 'POST', P.settings, list, 201, { notification_type: 'failed_login', email: 'noc@example.com' }, true);
    expect(body).toEqual({ id: 5, reseller: 7, notification_type: 'failed_login', email: 'noc@example.com', enabled: true });
  });
  it('POST without email is refused by the schema and answered 400 iam_reseller_ValidationError', async () => {
    const body = await expectCall(IAM, 'POST', P.settings, list, 400, { notification_type: 'failed_login' }, false);
    expectValid(componentValidator(IAM, 'iam_reseller_ValidationError'), body);
    expect(body.errors.email).toEqual(['This field is required.']);
  });
  it('POST with a type outside the enum is refused by the schema and answered 400 iam_reseller_ValidationError', async () => {
    const body = await expectCall(IAM, 'POST', P.settings, list, 400, { notification_type: 'sms', email: 'noc@example.com' }, false);
    expectValid(componentValidator(IAM, 'iam_reseller_ValidationError'), body);
  });
  it('POST with malformed JSON answers 400 JSONParseError', async () => {
    const res = await emu.call('POST', list, { rawBody: '{', headers: { 'Content-Type': 'application/json' } });
    expect(res.status).toBe(400);
    expectValid(componentValidator(IAM, 'JSONParseError'), res.body);
  });
  it('DELETE answers 204 with no body, then the setting is gone (404)', async () => {
    await expectCall(IAM, 'DELETE', P.setting, `${list}/4`, 204);
    const res = await emu.call('DELETE', `${list}/4`);
    expect(res.status).toBe(404);
  });
});

describe('quota limit requests (cloud_api.yaml)', () => {
  it('a POST body with the vendor limit names is accepted (201), with another name refused by both (400)', async () => {
    const good = { description: 'GPUs', requested_limits: { global_limits: { keypair_count_limit: 2 }, regional_limits: [{ region_id: 76, gpu_count_limit: 4 }] } };
    expect(requestValidator(CLOUD, 'POST', P.quotas)(good)).toBe(true);
    expect((await emu.call('POST', P.quotas, { body: good })).status).toBe(201);
    const bad = { description: 'GPUs', requested_limits: { regional_limits: [{ region_id: 76, gpu_count_limits: 4 }] } };
    expect(requestValidator(CLOUD, 'POST', P.quotas)(bad)).toBe(false);
    const res = await emu.call('POST', P.quotas, { body: bad });
    expect(res.status).toBe(400);
    expectValid(componentValidator(CLOUD, 'NotFoundErrorSchema'), res.body);
  });
  it('a POST body without requested_limits is refused by both (400)', async () => {
    expect(requestValidator(CLOUD, 'POST', P.quotas)({ description: 'x' })).toBe(false);
    expect((await emu.call('POST', P.quotas, { body: { description: 'x' } })).status).toBe(400);
  });
  it('DELETE answers 204 with no body', () => expectCall(CLOUD, 'DELETE', P.quota, '/cloud/v2/limits_request/43', 204));

  it("the limit names edgeform validates offline are exactly the vendor schema's", () => {
    const schemas = loadSpec(CLOUD).doc.components.schemas;
    expect([...GLOBAL_LIMIT_FIELDS].sort()).toEqual(Object.keys(schemas.CreateGlobalQuotasLimitsSerializer.properties).sort());
    expect(['region_id', ...REGIONAL_LIMIT_FIELDS].sort()).toEqual(Object.keys(schemas.RegionalQuotasLimitsSerializer.properties).sort());
    expect(schemas.CreateGlobalQuotasLimitsSerializer.additionalProperties).toBe(false);
    expect(schemas.RegionalQuotasLimitsSerializer.additionalProperties).toBe(false);
  });
});
