/**
 * Contract tests of the emulator's CDN service against the vendor's cdn_api.yaml: every
 * operation on origin groups, CDN resources and rules answers in the schema of the same
 * operation and status; the sample bodies sent are ones the vendor's request schema accepts (or,
 * where a test says so, refuses); the filters and page parameters used are documented. A 400
 * whose documented schema is a oneOf of open objects (several match any body) is checked against
 * the one component it is.
 */
import type { ValidateFunction } from 'ajv';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { componentValidator, expectValid, loadSpec, queryChecker, requestValidator, responseValidator } from '../../helpers/openapi.js';

const CDN = 'cdn_api.yaml';
const P = {
  groups: '/cdn/origin_groups',
  group: '/cdn/origin_groups/{origin_group_id}',
  resources: '/cdn/resources',
  resource: '/cdn/resources/{resource_id}',
  issueLe: '/cdn/resources/{id}',
  revokeLe: '/cdn/resources/{res_id}',
  certs: '/cdn/sslData',
  cert: '/cdn/sslData/{ssl_id}',
  certStatus: '/cdn/sslData/{cert_id}/status',
  rules: '/cdn/resources/{resource_id}/rules',
  rule: '/cdn/resources/{resource_id}/rules/{rule_id}',
};

const FIXTURES = {
  cdn_origin_groups: [
    { id: 10, name: 'web-origins', use_next: true, sources: [{ source: 'origin.example.com' }, { source: '198.51.100.7:8080', backup: true }] },
    { id: 11, name: 'unused', sources: [{ source: 'spare.example.com' }] },
    {
      id: 12,
      name: 'buckets',
      sources: [
        { origin_type: 's3' as const, config: { s3_type: 'other', s3_bucket_name: 'b', s3_storage_hostname: 's3.example.com', s3_access_key_id: 'k', s3_secret_access_key: 's' } },
        { origin_type: 'fastedge' as const, config: { app_id: '1001' }, backup: true },
      ],
    },
  ],
  cdn_resources: [
    { id: 220, cname: 'cdn.example.com', originGroup: 10, options: { gzipOn: { enabled: true, value: true }, cors: { enabled: true, value: ['*'], always: false } } },
    { id: 221, cname: 'static.example.com', originGroup: 12, active: false },
  ],
  cdn_rules: [
    { id: 5, resource: 220, name: 'images', rule: '/images/*', originGroup: 12, options: { edge_cache_settings: { enabled: true, value: '1d' } } },
    { id: 6, resource: 220, name: 'old', rule: '/old/*', active: false },
  ],
  cdn_certificates: [
    { id: 30, name: 'own', automated: false },
    { id: 31, name: 'le-spare', automated: true },
  ],
};

/** The vendor's own format names (`nginx time`, `country-code`, `domain`, ...): documentation, not checked (ajv would warn on each). */
function ignoreVendorFormats(): void {
  const { doc, ajv } = loadSpec(CDN);
  const formats = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node !== null && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key === 'format' && typeof value === 'string') formats.add(value);
        else walk(value);
      }
    }
  };
  walk(doc.components.schemas);
  for (const format of formats) if (ajv.formats[format] === undefined) ajv.addFormat(format, true);
}

let emu: TestEmulator;
beforeAll(async () => {
  ignoreVendorFormats();
  emu = await startTestEmulator({ fixtures: FIXTURES });
});
beforeEach(() => emu.reset());
afterAll(() => emu.close());

const validators = new Map<string, ValidateFunction>();
/** Each schema compiled once per file (compiling ResourceResponse with every option is what costs). */
function cached(key: string, make: () => ValidateFunction): ValidateFunction {
  let validate = validators.get(key);
  if (validate === undefined) validators.set(key, (validate = make()));
  return validate;
}

/**
 * Sends a request (its body judged by the vendor's request schema when `validBody` is given) and
 * checks the status and the answer against the operation's schema for that status, or against
 * `component` where the documented schema cannot tell its alternatives apart.
 */
async function expectCall(method: string, template: string, path: string, status: number, options: { body?: unknown; validBody?: boolean; component?: string } = {}): Promise<any> {
  const { body, validBody, component } = options;
  if (body !== undefined && validBody !== undefined)
    expect(cached(`request ${method} ${template}`, () => requestValidator(CDN, method, template))(body), 'the vendor schema judges the sample body').toBe(validBody);
  const query = new URL(path, 'http://x').searchParams;
  expect(queryChecker(CDN, method, template)(query), 'the query parameters are documented').toEqual([]);
  const res = await emu.call(method, path, body === undefined ? {} : { body });
  expect(res.status, res.text).toBe(status);
  if (status === 204) expect(res.text).toBe('');
  else if (status === 404)
    expect(res.body).toEqual({ detail: 'Not found.' }); // documented without a body schema
  else if (component !== undefined)
    expectValid(
      cached(component, () => componentValidator(CDN, component)),
      res.body,
    );
  else
    expectValid(
      cached(`${method} ${template} ${status}`, () => responseValidator(CDN, method, template, status)),
      res.body,
    );
  return res.body;
}

/** An S3 origin's config within the vendor's S3Config restrictions (its example keys). */
const S3_CONFIG = {
  s3_type: 'amazon',
  s3_bucket_name: 'b',
  s3_region: 'eu-west-1',
  s3_access_key_id: 'EXAMPLEFODNN7EXAMPLE',
  s3_secret_access_key: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
};

const hostGroup = {
  name: 'api',
  use_next: false,
  proxy_next_upstream: ['error', 'timeout', 'http_502'],
  sources: [
    { source: 'api.example.com', tag: 'default' },
    { source: 'api2.example.com', backup: true },
  ],
};

describe('origin groups (cdn_api.yaml)', () => {
  it('GET the list answers the plain list, and the paginated list with limit', async () => {
    const plain = await expectCall('GET', P.groups, P.groups, 200);
    expect(plain).toHaveLength(3);
    const page = await expectCall('GET', P.groups, `${P.groups}?limit=1&offset=1`, 200);
    expect(page).toMatchObject({ count: 3, results: [{ id: 11 }] });
    await expectCall('GET', P.groups, `${P.groups}?name=web-origins&sources=origin.example.com&has_related_resources=true`, 200);
  });
  it('GET one answers OriginGroupsResponse (host, S3 and FastEdge sources); unknown 404', async () => {
    await expectCall('GET', P.group, `${P.groups}/10`, 200);
    const buckets = await expectCall('GET', P.group, `${P.groups}/12`, 200);
    expect(buckets.sources.map((s: { origin_type: string }) => s.origin_type)).toEqual(['s3', 'fastedge']);
    await expectCall('GET', P.group, `${P.groups}/99`, 404);
  });
  it('POST answers 201 OriginGroupsResponse', async () => {
    const body = await expectCall('POST', P.groups, P.groups, 201, { body: hostGroup, validBody: true });
    expect(body).toMatchObject({ id: 13, name: 'api' });
  });
  it('POST with an S3 source answers 201 with the keys hidden', async () => {
    const s3 = {
      name: 's3',
      sources: [{ origin_type: 's3', config: S3_CONFIG }],
    };
    const body = await expectCall('POST', P.groups, P.groups, 201, { body: s3, validBody: true });
    expect(body.sources[0].config).toMatchObject({ s3_access_key_id: 'SECRET_VALUE', s3_secret_access_key: 'SECRET_VALUE', s3_auth_type: 'awsSignatureV4' });
    // The emulator keeps what was sent (the platform uses the keys), and only answers them masked.
    expect(emu.state.cdnOriginGroups.get(body.id)!.sources[0]!.config).toMatchObject({ s3_secret_access_key: S3_CONFIG.s3_secret_access_key });
  });
  it('POST with an S3 source missing its config answers 400 S3ConfigRequiredError, two with one bucket S3BucketNameDuplicateError', async () => {
    await expectCall('POST', P.groups, P.groups, 400, { body: { name: 'x', sources: [{ origin_type: 's3' }] }, component: 'S3ConfigRequiredError' });
    const twice = {
      name: 'x',
      sources: [
        { origin_type: 's3', config: S3_CONFIG },
        { origin_type: 's3', config: { ...S3_CONFIG, s3_region: 'us-east-1' } },
      ],
    };
    await expectCall('POST', P.groups, P.groups, 400, { body: twice, validBody: true, component: 'S3BucketNameDuplicateError' });
  });
  it('POST with S3 keys outside the S3Config restrictions, or an amazon bucket without its region, answers 400 naming the config field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...S3_CONFIG, s3_secret_access_key: 'short' }, 's3_secret_access_key'],
      [{ ...S3_CONFIG, s3_secret_access_key: 'has spaces in it, sixteen+' }, 's3_secret_access_key'],
      [{ ...S3_CONFIG, s3_access_key_id: 'AK!' }, 's3_access_key_id'],
      [{ ...S3_CONFIG, s3_region: undefined }, 's3_region'],
      [{ ...S3_CONFIG, s3_type: 'other', s3_region: undefined }, 's3_storage_hostname'],
    ];
    for (const [config, field] of cases) {
      const res = await emu.call('POST', P.groups, { body: { name: 'x', sources: [{ origin_type: 's3', config }] } });
      expect(res.status, res.text).toBe(400);
      expect(Object.keys(res.body.errors.sources.s3_entry_0.config)).toEqual([field]);
    }
  });
  it('POST with a taken name answers 400 OriginGroupNameNotUniqueError', () =>
    expectCall('POST', P.groups, P.groups, 400, { body: { ...hostGroup, name: 'unused' }, validBody: true, component: 'OriginGroupNameNotUniqueError' }));
  it('POST without sources answers 400 OriginGroupIsEmptyError', () =>
    expectCall('POST', P.groups, P.groups, 400, { body: { name: 'x', sources: [] }, validBody: true, component: 'OriginGroupIsEmptyError' }));
  it('POST with the same source twice answers 400 OriginSourceMustBeUniqueError', () =>
    expectCall('POST', P.groups, P.groups, 400, {
      body: { name: 'x', sources: [{ source: 'a.example.com' }, { source: 'a.example.com' }] },
      validBody: true,
      component: 'OriginSourceMustBeUniqueError',
    }));
  it('POST with only backup sources answers 400 OriginLastSourceNotBackupError, none enabled SourcesShouldBeEnabledError', async () => {
    await expectCall('POST', P.groups, P.groups, 400, {
      body: { name: 'x', sources: [{ source: 'a.example.com', backup: true }] },
      validBody: true,
      component: 'OriginLastSourceNotBackupError',
    });
    await expectCall('POST', P.groups, P.groups, 400, {
      body: { name: 'x', sources: [{ source: 'a.example.com', enabled: false }] },
      validBody: true,
      component: 'SourcesShouldBeEnabledError',
    });
  });
  it('PUT answers 200 OriginGroupsResponse; PATCH too', async () => {
    await expectCall('PUT', P.group, `${P.groups}/11`, 200, { body: { ...hostGroup, name: 'unused-2' }, validBody: true });
    // ChangeOriginGroup is a oneOf whose deprecated AWS variant requires nothing, so a body naming `name` matches both variants (the schema refuses it): PATCH without a name.
    expect(requestValidator(CDN, 'PATCH', P.group)({ name: 'unused-3' })).toBe(false);
    await expectCall('PATCH', P.group, `${P.groups}/11`, 200, { body: { use_next: true, proxy_next_upstream: ['error'] }, validBody: true });
    await expectCall('PATCH', P.group, `${P.groups}/99`, 404, { body: { use_next: true }, validBody: true });
  });
  it('DELETE answers 204; a group in use 400 OriginGroupIsUsedByResourceError or OriginGroupIsUsedByRulesError', async () => {
    const byResource = await expectCall('DELETE', P.group, `${P.groups}/10`, 400, { component: 'OriginGroupIsUsedByResourceError' });
    expect(byResource).toEqual({ name: ['There are resources using this group'] });
    await emu.call('PATCH', '/cdn/resources/221', { body: { originGroup: 11 } });
    const byRules = await expectCall('DELETE', P.group, `${P.groups}/12`, 400, { component: 'OriginGroupIsUsedByRulesError' });
    expect(byRules).toEqual({ name: ['There are rules using this group'] });
    await emu.call('PATCH', '/cdn/resources/221', { body: { originGroup: 10 } });
    await expectCall('DELETE', P.group, `${P.groups}/11`, 204);
  });
});

describe('CDN resources (cdn_api.yaml)', () => {
  const create = {
    cname: 'new.example.com',
    originGroup: 11,
    originProtocol: 'HTTPS',
    description: 'made by a test',
    secondaryHostnames: ['new2.example.com'],
    active: true,
    options: {
      edge_cache_settings: { enabled: true, value: '43200s', custom_values: { '404': '5m' } },
      browser_cache_settings: { enabled: true, value: '3600s' },
      gzipOn: { enabled: true, value: true },
      cors: { enabled: true, value: ['domain.com'] },
      rewrite: { enabled: true, body: '/(.*) /additional_path/$1' },
      staticRequestHeaders: { enabled: true, value: { 'X-From': 'cdn' } },
      country_acl: { enabled: true, policy_type: 'allow', excepted_values: ['GB', 'DE'] },
      websockets: { enabled: true, value: true },
    },
  };
  it('GET the list answers the plain list, and the paginated list with limit', async () => {
    expect(await expectCall('GET', P.resources, P.resources, 200)).toHaveLength(2);
    expect(await expectCall('GET', P.resources, `${P.resources}?limit=1`, 200)).toMatchObject({ count: 2, next: '/cdn/resources?limit=1&offset=1' });
    await expectCall('GET', P.resources, `${P.resources}?cname=cdn.example.com&originGroup=10&sslEnabled=false&deleted=false&status=active&limit=10&offset=0`, 200);
  });
  it('GET one answers ResourceResponse with every option; unknown 404', async () => {
    const body = await expectCall('GET', P.resource, `${P.resources}/220`, 200);
    expect(Object.keys(body.options).sort()).toEqual(Object.keys(loadSpec(CDN).doc.components.schemas.resource_options.properties).sort());
    await expectCall('GET', P.resource, `${P.resources}/9`, 404);
  });
  it('POST answers 201 ResourceResponse; with origin too', async () => {
    await expectCall('POST', P.resources, P.resources, 201, { body: create, validBody: true });
    await expectCall('POST', P.resources, P.resources, 201, { body: { cname: 'o.example.com', origin: 'backend.example.com' }, validBody: true });
  });
  it('POST with a taken cname answers 400 CnameAlreadyExistsError, a taken secondary hostname SecondaryCnameAlreadyExistsError', async () => {
    await expectCall('POST', P.resources, P.resources, 400, { body: { ...create, cname: 'cdn.example.com' }, validBody: true, component: 'CnameAlreadyExistsError' });
    await expectCall('POST', P.resources, P.resources, 400, {
      body: { ...create, secondaryHostnames: ['static.example.com'] },
      validBody: true,
      component: 'SecondaryCnameAlreadyExistsError',
    });
  });
  it('POST with an unknown option or a bad option value answers 400 CommonValidationError', async () => {
    await expectCall('POST', P.resources, P.resources, 400, {
      body: { ...create, options: { gzipOn: { enabled: true, value: 'yes' } } },
      validBody: false,
      component: 'CommonValidationError',
    });
    await expectCall('POST', P.resources, P.resources, 400, { body: { ...create, options: { gzip_on: { enabled: true, value: true } } }, component: 'CommonValidationError' });
  });
  it('POST with malformed JSON answers 400 JSONParseError', async () => {
    const res = await emu.call('POST', P.resources, { rawBody: '{"cname": ', headers: { 'Content-Type': 'application/json' } });
    expect(res.status).toBe(400);
    expectValid(componentValidator(CDN, 'JSONParseError'), res.body);
    expect(res.body.message).toMatch(/^JSON parse error - /);
  });
  it('PUT and PATCH answer 200 ResourceResponse', async () => {
    await expectCall('PUT', P.resource, `${P.resources}/220`, 200, { body: { originGroup: 10, originProtocol: 'MATCH', options: create.options }, validBody: true });
    await expectCall('PATCH', P.resource, `${P.resources}/220`, 200, { body: { active: false, options: { gzipOn: null } }, validBody: true });
    await expectCall('PATCH', P.resource, `${P.resources}/9`, 404, { body: { active: false }, validBody: true });
  });
  it('DELETE of an active resource answers 400 ActiveInstanceDeletionProhibited; of an inactive one 204', async () => {
    await expectCall('DELETE', P.resource, `${P.resources}/220`, 400, { component: 'ActiveInstanceDeletionProhibited' });
    await expectCall('DELETE', P.resource, `${P.resources}/221`, 204);
    await expectCall('DELETE', P.resource, `${P.resources}/221`, 404);
  });
});

describe('rules (cdn_api.yaml)', () => {
  const rule = {
    name: 'css',
    rule: '/css/*',
    ruleType: 0,
    weight: 2,
    active: true,
    overrideOriginProtocol: 'HTTPS',
    originGroup: 11,
    options: { browser_cache_settings: { enabled: true, value: '1d' } },
  };
  it('GET the list answers the plain list, and the paginated list with limit', async () => {
    expect(await expectCall('GET', P.rules, `${P.resources}/220/rules`, 200)).toHaveLength(2);
    expect(await expectCall('GET', P.rules, `${P.resources}/220/rules?limit=1&offset=1`, 200)).toMatchObject({ count: 2, next: null });
  });
  it('GET one answers RuleResponse with every option; unknown 404', async () => {
    const body = await expectCall('GET', P.rule, `${P.resources}/220/rules/5`, 200);
    expect(Object.keys(body.options).sort()).toEqual(Object.keys(loadSpec(CDN).doc.components.schemas.rule_options.properties).sort());
    await expectCall('GET', P.rule, `${P.resources}/221/rules/5`, 404);
  });
  it('POST answers 201 RuleResponse', () => expectCall('POST', P.rules, `${P.resources}/220/rules`, 201, { body: rule, validBody: true }));
  it('POST with a taken name answers 400 RuleNameAlreadyExistsError, a taken pattern RulePatternAlreadyExistsError, a bad one RulePatternError', async () => {
    await expectCall('POST', P.rules, `${P.resources}/220/rules`, 400, { body: { ...rule, name: 'images' }, validBody: true, component: 'RuleNameAlreadyExistsError' });
    await expectCall('POST', P.rules, `${P.resources}/220/rules`, 400, { body: { ...rule, rule: '/images/*' }, validBody: true, component: 'RulePatternAlreadyExistsError' });
    await expectCall('POST', P.rules, `${P.resources}/220/rules`, 400, { body: { ...rule, rule: '/css/(' }, validBody: true, component: 'RulePatternError' });
  });
  it('POST without the required fields is refused by the schema and answered 400 CommonValidationError', () =>
    expectCall('POST', P.rules, `${P.resources}/220/rules`, 400, { body: { name: 'x' }, validBody: false, component: 'CommonValidationError' }));
  it('PUT and PATCH answer 200 RuleResponse', async () => {
    await expectCall('PUT', P.rule, `${P.resources}/220/rules/5`, 200, { body: { rule: '/img/*', ruleType: 0, options: {} }, validBody: true });
    await expectCall('PATCH', P.rule, `${P.resources}/220/rules/5`, 200, { body: { weight: 5, originGroup: null }, validBody: true });
  });
  it('DELETE of an active rule answers 400 ActiveInstanceDeletionProhibited; of an inactive one 204', async () => {
    await expectCall('DELETE', P.rule, `${P.resources}/220/rules/5`, 400);
    await expectCall('DELETE', P.rule, `${P.resources}/220/rules/6`, 204);
  });
});

describe("SSL certificates and Let's Encrypt (cdn_api.yaml)", () => {
  const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
  const key = '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n';
  it('GET the list answers GetSSLAnswerList, plain and paginated; automated and resource_id filter it', async () => {
    expect(await expectCall('GET', P.certs, P.certs, 200)).toHaveLength(2);
    expect(await expectCall('GET', P.certs, `${P.certs}?limit=1&offset=1`, 200)).toMatchObject({ count: 2, next: null, results: [{ id: 31 }] });
    expect((await expectCall('GET', P.certs, `${P.certs}?automated=true`, 200)).map((c: { id: number }) => c.id)).toEqual([31]);
    expect(await expectCall('GET', P.certs, `${P.certs}?resource_id=220&validity_not_after_lte=2030-01-01T00:00:00Z`, 200)).toEqual([]);
  });
  it('GET one answers GetSSLAnswer; unknown 404', async () => {
    expect(await expectCall('GET', P.cert, `${P.certs}/30`, 200)).toMatchObject({ id: 30, name: 'own', automated: false });
    await expectCall('GET', P.cert, `${P.certs}/99`, 404);
  });
  it("POST takes both AddSSL variants (own certificate, Let's Encrypt) and answers 201; a taken name or a missing certificate is 400", async () => {
    const le = await expectCall('POST', P.certs, P.certs, 201, { body: { name: 'le-new', automated: true }, validBody: true, component: 'GetSSLAnswer' });
    expect(le).toMatchObject({ name: 'le-new', automated: true, hasRelatedResources: false });
    const own = await expectCall('POST', P.certs, P.certs, 201, { body: { name: 'own-2', sslCertificate: pem, sslPrivateKey: key }, validBody: true, component: 'GetSSLAnswer' });
    expect(own).toMatchObject({ name: 'own-2', automated: false });
    const taken = await emu.call('POST', P.certs, { body: { name: 'own', automated: true } });
    expect([taken.status, taken.body]).toEqual([400, { errors: { name: ['SSL certificate with this name already exists.'] } }]);
    const bare = await emu.call('POST', P.certs, { body: { name: 'x' } });
    expect(bare.status).toBe(400);
    expect(Object.keys((bare.body as { errors: object }).errors).sort()).toEqual(['sslCertificate', 'sslPrivateKey']);
  });
  it('PATCH AttachLECert issues the certificate: the status is active until the issuing time has passed, then Done; RevokeLECert revokes it', async () => {
    const attach = { sslData: 31, sslEnabled: true };
    const attached = await expectCall('PATCH', P.issueLe, `${P.resources}/220`, 200, { body: attach, validBody: true, component: 'ResourceResponse' });
    expect(attached).toMatchObject({ sslData: 31, sslEnabled: true });
    const issuing = await expectCall('GET', P.certStatus, `${P.certs}/31/status`, 200);
    expect(issuing).toMatchObject({ active: true, resource: 220, statuses: [] });
    expect(issuing.finished).toBeUndefined();
    emu.clock.advance(60_000);
    const done = await expectCall('GET', P.certStatus, `${P.certs}/31/status`, 200);
    expect(done).toMatchObject({ active: false, latest_status: { status: 'Done', error: '' }, attempts_count: 1 });
    expect((await expectCall('GET', P.certs, `${P.certs}?resource_id=220`, 200)).map((c: { id: number }) => c.id)).toEqual([31]);
    const revoke = { sslData: null, sslEnabled: false };
    expect(await expectCall('PATCH', P.revokeLe, `${P.resources}/220`, 200, { body: revoke, validBody: true, component: 'ResourceResponse' })).toMatchObject({
      sslData: null,
      sslEnabled: false,
    });
    await expectCall('GET', P.certStatus, `${P.certs}/31/status`, 400, { component: 'LECertificateIsNotAttachedToResourceError' });
  });
  it('issuing for a host name that cannot be validated ends Failed with the reason', async () => {
    await emu.call('PATCH', `${P.resources}/221`, { body: { secondaryHostnames: ['www.static.invalid'] } });
    await expectCall('PATCH', P.issueLe, `${P.resources}/221`, 200, { body: { sslData: 31, sslEnabled: true }, validBody: true, component: 'ResourceResponse' });
    emu.clock.advance(60_000);
    const failed = await expectCall('GET', P.certStatus, `${P.certs}/31/status`, 200);
    expect(failed.latest_status).toMatchObject({ status: 'Failed', error: 'DNSProblem' });
    expect(failed.latest_status.details).toContain('www.static.invalid');
  });
  it('PATCH AttachLECert of a certificate another resource has is 400 LetsEncryptCertificateAlreadyAttached; to a wildcard host WildcardResourceCnameSSLLEError', async () => {
    await emu.call('PATCH', `${P.resources}/220`, { body: { sslData: 31, sslEnabled: true } });
    const taken = await expectCall('PATCH', P.issueLe, `${P.resources}/221`, 400, {
      body: { sslData: 31, sslEnabled: true },
      validBody: true,
      component: 'LetsEncryptCertificateAlreadyAttached',
    });
    expect(taken.errors.sslData[0]).toContain('already attached to another resource');
    await emu.call('POST', P.certs, { body: { name: 'le-3', automated: true } });
    await emu.call('PATCH', `${P.resources}/221`, { body: { secondaryHostnames: ['*.static.example.com'] } });
    const wildcard = await expectCall('PATCH', P.issueLe, `${P.resources}/221`, 400, {
      body: { sslData: 32, sslEnabled: true },
      validBody: true,
      component: 'WildcardResourceCnameSSLLEError',
    });
    expect(wildcard.errors.sslData[0]).toContain('wildcard');
  });
  it('GET the status of an own certificate is 400 NotLECertificateStatusError; DELETE answers 204, 400 while a resource uses it', async () => {
    await expectCall('GET', P.certStatus, `${P.certs}/30/status`, 400, { component: 'NotLECertificateStatusError' });
    await emu.call('PATCH', `${P.resources}/220`, { body: { sslData: 30, sslEnabled: true } });
    expect((await emu.call('DELETE', `${P.certs}/30`)).status).toBe(400);
    await expectCall('DELETE', P.cert, `${P.certs}/31`, 204);
    await expectCall('DELETE', P.cert, `${P.certs}/31`, 404);
  });
});

describe('purge and the purge history (cdn_api.yaml: purge-cache, get-purge-status-list)', () => {
  const purge = (id: number) => `${P.resources}/${id}/purge`;
  // ResourcePurge is a oneOf of three open objects that every body matches more than one of, so
  // the bodies are the vendor's own examples rather than judged by the schema.
  it('POST answers 201 for each type, the history answers PurgeStatusesListResponse newest first, In progress then Successful', async () => {
    for (const body of [{ urls: ['/some-url.jpg', '/img/example.jpg'] }, { paths: ['/images/*', '/videos/*'] }, { paths: [] }]) {
      const res = await emu.call('POST', purge(220), { body });
      expect(res.status, res.text).toBe(201);
    }
    const list = await expectCall('GET', '/cdn/purge_statuses', '/cdn/purge_statuses?cname=cdn.example.com&limit=100', 200);
    expect(list.results.map((p: { purge_type: string; status: string }) => [p.purge_type, p.status])).toEqual([
      ['purge_all', 'In progress'],
      ['purge_by_pattern', 'In progress'],
      ['purge_by_url', 'In progress'],
    ]);
    expect(list.results[2]).toMatchObject({ resource: { id: 220, cname: 'cdn.example.com' }, payload: { urls: ['/some-url.jpg', '/img/example.jpg'] } });
    emu.clock.advance(60_000);
    const done = await expectCall('GET', '/cdn/purge_statuses', '/cdn/purge_statuses?purge_type=purge_by_url&status=Successful', 200);
    expect(done.count).toBe(1);
    // An inactive resource's purge ends Failed.
    expect((await emu.call('POST', purge(221), { body: { paths: [] } })).status).toBe(201);
    emu.clock.advance(60_000);
    const failed = await expectCall('GET', '/cdn/purge_statuses', '/cdn/purge_statuses?cname=static.example.com', 200);
    expect(failed.results[0].status).toBe('Failed');
  });
  it('POST past the per-minute limits answers 429 with Retry-After: one pattern or purge-all, two URL purges a minute per resource', async () => {
    expect((await emu.call('POST', purge(220), { body: { paths: ['/a/*'] } })).status).toBe(201);
    expect((await emu.call('POST', purge(220), { body: { urls: ['/1'] } })).status).toBe(201);
    expect((await emu.call('POST', purge(220), { body: { urls: ['/2'] } })).status).toBe(201);
    emu.clock.advance(15_000);
    const pattern = await emu.call('POST', purge(220), { body: { paths: ['/b/*'] } });
    expect(pattern.status).toBe(429);
    expect(pattern.headers.get('retry-after')).toBe('45');
    expect((await emu.call('POST', purge(220), { body: { urls: ['/3'] } })).status).toBe(429);
    // Another resource has limits of its own; a minute later the first takes purges again.
    expect((await emu.call('POST', purge(221), { body: { paths: ['/b/*'] } })).status).toBe(201);
    emu.clock.advance(45_000);
    expect((await emu.call('POST', purge(220), { body: { paths: ['/b/*'] } })).status).toBe(201);
  });
  it('POST with bad paths answers 400 in the documented shapes; an unknown resource 404', async () => {
    await expectCall('POST', '/cdn/resources/{resource_id}/purge', purge(220), 400, { body: {}, component: 'PathsNotProvidedPurgeError' });
    await expectCall('POST', '/cdn/resources/{resource_id}/purge', purge(220), 400, { body: { paths: '/a' }, component: 'IncorrectPathsTypePurgeError' });
    await expectCall('POST', '/cdn/resources/{resource_id}/purge', purge(220), 400, { body: { paths: ['a/b'] }, component: 'IncorrectPathsFormatPurgeError' });
    await expectCall('POST', '/cdn/resources/{resource_id}/purge', purge(220), 400, { body: { urls: ['/a', ''] }, component: 'IncorrectPathsItemsPurgeOrPrefetchError' });
    const many = await emu.call('POST', purge(220), { body: { urls: Array.from({ length: 101 }, (_, i) => `/${i}`) } });
    expect(many.status).toBe(400);
    const patterns = await emu.call('POST', purge(220), { body: { paths: Array.from({ length: 11 }, (_, i) => `/${i}/*`) } });
    expect(patterns.status).toBe(400);
    expect((await emu.call('POST', purge(999), { body: { paths: [] } })).status).toBe(404);
  });
});
