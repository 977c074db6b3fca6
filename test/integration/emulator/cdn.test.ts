import { describe, expect, it } from 'vitest';
import { EmulatorFixturesError, loadFixtures } from '../../../src/emulator/index.js';
import { type TestEmulator, useTestEmulator } from '../../helpers/emulator.js';

const FIXTURES = {
  cdn_origin_groups: [
    { id: 10, name: 'web-origins', use_next: true, sources: [{ source: 'origin.example.com' }, { source: '198.51.100.7:8080', backup: true }] },
    { id: 11, name: 'unused', sources: [{ source: 'spare.example.com' }] },
    { id: 12, name: 'images', sources: [{ source: 'img.example.com' }] },
  ],
  cdn_resources: [
    { id: 220, cname: 'cdn.example.com', originGroup: 10, description: 'main', secondaryHostnames: ['www-cdn.example.com'], options: { gzipOn: { enabled: true, value: true } } },
    {
      id: 221,
      cname: 'static.example.com',
      originGroup: 12,
      active: false,
      sslEnabled: true,
      sslData: 77,
      created: '2025-12-05T00:00:00Z',
      options: { rewrite: { enabled: true, body: '/a /b' } },
    },
  ],
  cdn_rules: [
    { id: 5, resource: 220, name: 'images', rule: '/images/*', originGroup: 12 },
    { id: 6, resource: 220, name: 'old', rule: '/old/*', active: false },
  ],
};

const DELETE_ACTIVE = 'Deletion of this instance is currently not possible as it is in an active state. Please deactivate it before attempting the deletion request again.';

describe('emulator CDN', () => {
  let emu: TestEmulator;
  useTestEmulator((started) => (emu = started), { fixtures: FIXTURES, control: true });

  describe('origin groups', () => {
    it('lists a plain array without limit, and {count, next, previous, results} with it', async () => {
      const all = await emu.call('GET', '/cdn/origin_groups');
      expect(all.status).toBe(200);
      expect(all.body.map((g: { id: number }) => g.id)).toEqual([10, 11, 12]);
      const page = await emu.call('GET', '/cdn/origin_groups?limit=2');
      expect(page.body).toMatchObject({ count: 3, next: '/cdn/origin_groups?limit=2&offset=2', previous: null });
      expect(page.body.results.map((g: { id: number }) => g.id)).toEqual([10, 11]);
      const last = await emu.call('GET', '/cdn/origin_groups?limit=2&offset=2');
      expect(last.body).toMatchObject({ count: 3, next: null, previous: '/cdn/origin_groups?limit=2' });
      expect(last.body.results.map((g: { id: number }) => g.id)).toEqual([12]);
    });

    it('filters by exact name, by source and by has_related_resources', async () => {
      expect((await emu.call('GET', '/cdn/origin_groups?name=web-origins')).body.map((g: { id: number }) => g.id)).toEqual([10]);
      expect((await emu.call('GET', '/cdn/origin_groups?name=web')).body).toEqual([]);
      expect((await emu.call('GET', '/cdn/origin_groups?sources=spare.example.com')).body.map((g: { id: number }) => g.id)).toEqual([11]);
      expect((await emu.call('GET', '/cdn/origin_groups?has_related_resources=false')).body.map((g: { id: number }) => g.id)).toEqual([11]);
      expect((await emu.call('GET', '/cdn/origin_groups?has_related_resources=maybe')).status).toBe(400);
      expect((await emu.call('GET', '/cdn/origin_groups?limit=0')).status).toBe(400);
    });

    it('answers one group in the vendor shape', async () => {
      const res = await emu.call('GET', '/cdn/origin_groups/10');
      expect(res.body).toEqual({
        id: 10,
        name: 'web-origins',
        use_next: true,
        proxy_next_upstream: ['error', 'timeout'],
        auth_type: 'none',
        sources: [
          { source: 'origin.example.com', backup: false, enabled: true, tag: 'default', host_header_override: null },
          { source: '198.51.100.7:8080', backup: true, enabled: true, tag: 'default', host_header_override: null },
        ],
        path: '',
        has_related_resources: true,
      });
      expect(await emu.call('GET', '/cdn/origin_groups/99')).toMatchObject({ status: 404, body: { detail: 'Not found.' } });
      expect((await emu.call('GET', '/cdn/origin_groups/abc')).status).toBe(404);
    });

    it('creates with the next id (201), refusing a taken name and an empty group as the vendor does', async () => {
      const created = await emu.call('POST', '/cdn/origin_groups', { body: { name: 'api', sources: [{ source: 'api.example.com' }] } });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ id: 13, name: 'api', use_next: false, auth_type: 'none', has_related_resources: false });
      expect(await emu.call('POST', '/cdn/origin_groups', { body: { name: 'api', sources: [{ source: 'x.example.com' }] } })).toMatchObject({
        status: 400,
        body: { errors: { name: ['Origin Group name should be unique.'] } },
      });
      expect(await emu.call('POST', '/cdn/origin_groups', { body: { name: 'empty', sources: [] } })).toMatchObject({
        status: 400,
        body: { errors: { source: ['Origin Group has to have at least one origin source.'] } },
      });
      expect((await emu.call('POST', '/cdn/origin_groups', { body: { name: 'dup', sources: [{ source: 'a.example.com' }, { source: 'a.example.com' }] } })).body).toEqual({
        errors: { sources: { 'a.example.com': { source: ['The field origin source must be unique inside group of origins.'] } } },
      });
      expect(
        (await emu.call('POST', '/cdn/origin_groups', { body: { name: 'bk', sources: [{ source: 'a.example.com', backup: true }] } })).body.errors.sources['a.example.com'].backup,
      ).toHaveLength(1);
      expect(emu.mutations.map(({ kind, id, change }) => `${kind} ${id} ${change}`)).toEqual(['cdn_origin_group 13 create']);
    });

    it('keeps S3 credentials out of its answers', async () => {
      const config = { s3_type: 'amazon', s3_bucket_name: 'b', s3_region: 'eu-west-1', s3_access_key_id: 'AKIAEXAMPLE', s3_secret_access_key: 'very-secret-value-0123' };
      const created = await emu.call('POST', '/cdn/origin_groups', { body: { name: 's3', sources: [{ origin_type: 's3', config }] } });
      expect(created.status).toBe(201);
      expect(created.body.sources[0]).toEqual({
        origin_type: 's3',
        config: {
          s3_type: 'amazon',
          s3_bucket_name: 'b',
          s3_region: 'eu-west-1',
          s3_storage_hostname: null,
          s3_auth_type: 'awsSignatureV4',
          s3_access_key_id: 'SECRET_VALUE',
          s3_secret_access_key: 'SECRET_VALUE',
        },
        backup: false,
        enabled: true,
        tag: 'default',
        host_header_override: null,
      });
      expect(created.text).not.toContain('very-secret-value-0123');
      const missing = await emu.call('POST', '/cdn/origin_groups', {
        body: { name: 's3b', sources: [{ origin_type: 's3', config: { ...config, s3_secret_access_key: undefined } }] },
      });
      expect(missing.body).toEqual({ errors: { sources: { s3_entry_0: { config: { s3_secret_access_key: ['This field is required.'] } } } } });
    });

    it('PUT needs name, use_next and sources; PATCH changes what it names', async () => {
      expect((await emu.call('PUT', '/cdn/origin_groups/11', { body: { name: 'unused' } })).body).toEqual({ errors: { use_next: ['This field is required.'] } });
      const put = await emu.call('PUT', '/cdn/origin_groups/11', { body: { name: 'renamed', use_next: true, sources: [{ source: 'new.example.com' }] } });
      expect(put.body).toMatchObject({ id: 11, name: 'renamed', use_next: true, sources: [{ source: 'new.example.com' }] });
      const patch = await emu.call('PATCH', '/cdn/origin_groups/11', { body: { proxy_next_upstream: ['error', 'http_502'] } });
      expect(patch.body).toMatchObject({ name: 'renamed', proxy_next_upstream: ['error', 'http_502'], sources: [{ source: 'new.example.com' }] });
      expect((await emu.call('PATCH', '/cdn/origin_groups/11', { body: { name: 'images' } })).status).toBe(400);
    });

    it('refuses to delete a group a resource or a rule uses, and deletes an unused one', async () => {
      expect(await emu.call('DELETE', '/cdn/origin_groups/10')).toMatchObject({ status: 400, body: { name: ['There are resources using this group'] } });
      await emu.call('PUT', '/cdn/resources/221', { body: { originGroup: 10 } });
      expect(await emu.call('DELETE', '/cdn/origin_groups/12')).toMatchObject({ status: 400, body: { name: ['There are rules using this group'] } });
      expect((await emu.call('DELETE', '/cdn/origin_groups/11')).status).toBe(204);
      expect((await emu.call('GET', '/cdn/origin_groups/11')).status).toBe(404);
    });
  });

  describe('resources', () => {
    it('answers every field and every option, null when not set', async () => {
      const res = await emu.call('GET', '/cdn/resources/220');
      expect(res.body).toMatchObject({
        id: 220,
        cname: 'cdn.example.com',
        active: true,
        status: 'active',
        originGroup: 10,
        originGroup_name: 'web-origins',
        originProtocol: 'HTTP',
        secondaryHostnames: ['www-cdn.example.com'],
        sslEnabled: false,
        sslData: null,
        description: 'main',
        created: '2025-12-01T00:00:00.000000Z',
      });
      expect(res.body.options.gzipOn).toEqual({ enabled: true, value: true });
      // A fixture's option gets the spec's field defaults, as one set through the API does.
      expect((await emu.call('GET', '/cdn/resources/221')).body.options.rewrite).toEqual({ enabled: true, body: '/a /b', flag: 'break' });
      expect(res.body.options.cors).toBeNull();
      expect(Object.keys(res.body.options)).toHaveLength(49);
      expect(res.body.rules.map((r: { id: number }) => r.id)).toEqual([5, 6]);
    });

    it('filters by cname and the other documented filters, paging with limit', async () => {
      const byCname = await emu.call('GET', '/cdn/resources?cname=static.example.com');
      expect(byCname.body.map((r: { id: number }) => r.id)).toEqual([221]);
      expect((await emu.call('GET', '/cdn/resources?cname=nope.example.com')).body).toEqual([]);
      expect((await emu.call('GET', '/cdn/resources?originGroup=10')).body.map((r: { id: number }) => r.id)).toEqual([220]);
      expect((await emu.call('GET', '/cdn/resources?sslEnabled=true&sslData_in=76,77')).body.map((r: { id: number }) => r.id)).toEqual([221]);
      expect((await emu.call('GET', '/cdn/resources?secondaryHostnames=www-cdn.example.com')).body.map((r: { id: number }) => r.id)).toEqual([220]);
      expect((await emu.call('GET', '/cdn/resources?rules=/images/*')).body.map((r: { id: number }) => r.id)).toEqual([220]);
      expect((await emu.call('GET', '/cdn/resources?min_created=2025-12-02T00:00:00Z')).body.map((r: { id: number }) => r.id)).toEqual([221]);
      expect((await emu.call('GET', '/cdn/resources?deleted=true')).body).toEqual([]);
      expect((await emu.call('GET', '/cdn/resources?status=gone')).status).toBe(400);
      const page = await emu.call('GET', '/cdn/resources?limit=1&offset=1&cname=static.example.com');
      expect(page.body).toMatchObject({ count: 1, next: null, previous: '/cdn/resources?limit=1&cname=static.example.com', results: [] });
      const first = await emu.call('GET', '/cdn/resources?limit=1');
      expect(first.body).toMatchObject({ count: 2, next: '/cdn/resources?limit=1&offset=1', previous: null });
    });

    it('creates with an origin group, fills the option defaults and refuses a taken cname with the vendor error', async () => {
      const body = {
        cname: 'new.example.com',
        originGroup: 11,
        description: 'x',
        options: { cors: { enabled: true, value: ['*'] }, rewrite: { enabled: true, body: '/(.*) /a/$1' } },
      };
      const created = await emu.call('POST', '/cdn/resources', { body });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ id: 222, cname: 'new.example.com', originGroup: 11, active: true });
      expect(created.body.options.cors).toEqual({ enabled: true, value: ['*'], always: false });
      expect(created.body.options.rewrite).toEqual({ enabled: true, body: '/(.*) /a/$1', flag: 'break' });
      expect(await emu.call('POST', '/cdn/resources', { body })).toMatchObject({
        status: 400,
        body: { errors: { cname: ['CNAME new.example.com already exists. Try another CNAME or contact support.'] } },
      });
      expect((await emu.call('POST', '/cdn/resources', { body: { ...body, cname: 'www-cdn.example.com' } })).status).toBe(400);
      expect((await emu.call('POST', '/cdn/resources', { body: { cname: 'z.example.com', originGroup: 11, secondaryHostnames: ['cdn.example.com'] } })).body).toEqual({
        errors: { secondaryHostnames: 'Hostname cdn.example.com already exists.' },
      });
    });

    it('creates an origin group for a resource made with origin, and needs exactly one of origin and originGroup', async () => {
      const created = await emu.call('POST', '/cdn/resources', { body: { cname: 'o.example.com', origin: 'backend.example.com' } });
      expect(created.status).toBe(201);
      const group = await emu.call('GET', `/cdn/origin_groups/${created.body.originGroup}`);
      expect(group.body).toMatchObject({ id: 13, name: 'o.example.com', sources: [{ source: 'backend.example.com' }] });
      expect((await emu.call('POST', '/cdn/resources', { body: { cname: 'p.example.com' } })).status).toBe(400);
      expect((await emu.call('POST', '/cdn/resources', { body: { cname: 'p.example.com', origin: 'a.example.com', originGroup: 10 } })).status).toBe(400);
      expect((await emu.call('POST', '/cdn/resources', { body: { cname: 'p.example.com', originGroup: 99 } })).body).toEqual({
        errors: { originGroup: ['Invalid pk "99" - object does not exist.'] },
      });
    });

    it('refuses an unknown option and a bad option value with 400 naming the path', async () => {
      const unknown = await emu.call('POST', '/cdn/resources', { body: { cname: 'q.example.com', originGroup: 10, options: { gzipon: { enabled: true, value: true } } } });
      expect(unknown).toMatchObject({ status: 400, body: { errors: { options: { gzipon: ['Unknown option.'] } } } });
      const bad = await emu.call('PATCH', '/cdn/resources/220', {
        body: { options: { gzipOn: { enabled: true, value: 'yes' }, cors: { enabled: true, value: [], alwayz: true } } },
      });
      expect(bad.status).toBe(400);
      expect(bad.body.errors.options.gzipOn.value).toEqual(['Invalid input: expected boolean, received string']);
      expect(bad.body.errors.options.cors.alwayz).toEqual(['Unknown field.']);
      expect((await emu.call('PATCH', '/cdn/resources/220', { body: { options: { http3_enabled: { enabled: true, value: true } } } })).status).toBe(200);
    });

    it('PATCH merges options per option (null unsets one); PUT replaces the whole set and needs originGroup', async () => {
      const patched = await emu.call('PATCH', '/cdn/resources/220', { body: { options: { websockets: { enabled: true, value: true } }, description: 'changed' } });
      expect(patched.body.options).toMatchObject({ gzipOn: { enabled: true, value: true }, websockets: { enabled: true, value: true } });
      expect(patched.body.description).toBe('changed');
      const unset = await emu.call('PATCH', '/cdn/resources/220', { body: { options: { gzipOn: null } } });
      expect(unset.body.options.gzipOn).toBeNull();
      expect((await emu.call('PUT', '/cdn/resources/220', { body: { options: {} } })).body).toEqual({ errors: { originGroup: ['This field is required.'] } });
      const put = await emu.call('PUT', '/cdn/resources/220', { body: { originGroup: 10, options: { cors: { enabled: false, value: [] } } } });
      expect(put.body.options).toMatchObject({ websockets: null, cors: { enabled: false, value: [], always: false } });
      expect(emu.mutations.map(({ kind, change, after }) => [kind, change, after])).toEqual([
        ['cdn_resource', 'update', { description: 'changed', options: ['websockets'] }],
        ['cdn_resource', 'update', { options: ['gzipOn'] }],
        ['cdn_resource', 'update', { options: ['cors', 'websockets'] }],
      ]);
    });

    it('refuses to delete an active resource with the vendor body; deletes it (and its rules) once deactivated', async () => {
      expect(await emu.call('DELETE', '/cdn/resources/220')).toMatchObject({ status: 400, body: { errors: [DELETE_ACTIVE] } });
      expect((await emu.call('PATCH', '/cdn/resources/220', { body: { active: false } })).body.active).toBe(false);
      expect((await emu.call('DELETE', '/cdn/resources/220')).status).toBe(204);
      expect((await emu.call('GET', '/cdn/resources/220')).status).toBe(404);
      expect((await emu.call('GET', '/cdn/resources/220/rules')).status).toBe(404);
      expect(emu.state.cdnRules.size).toBe(0);
      expect((await emu.call('DELETE', '/cdn/resources/221')).status).toBe(204);
    });

    it('keeps sslData to resources with sslEnabled', async () => {
      expect((await emu.call('PATCH', '/cdn/resources/220', { body: { sslData: 5 } })).status).toBe(400);
      expect((await emu.call('PATCH', '/cdn/resources/220', { body: { sslEnabled: true, sslData: 5 } })).body).toMatchObject({ sslEnabled: true, sslData: 5 });
    });
  });

  describe('rules', () => {
    it("lists a resource's rules (plain, or paged with limit), and 404 for an unknown resource", async () => {
      const all = await emu.call('GET', '/cdn/resources/220/rules');
      expect(all.body.map((r: { id: number }) => r.id)).toEqual([5, 6]);
      expect(all.body[0]).toEqual({
        id: 5,
        name: 'images',
        active: true,
        deleted: false,
        originGroup: 12,
        rule: '/images/*',
        ruleType: 0,
        weight: 1,
        originProtocol: 'HTTP',
        overrideOriginProtocol: null,
        preset_applied: false,
        primary_rule: null,
        options: expect.objectContaining({ gzipOn: null }),
      });
      expect(Object.keys(all.body[0].options)).toHaveLength(43);
      expect((await emu.call('GET', '/cdn/resources/221/rules')).body).toEqual([]);
      expect((await emu.call('GET', '/cdn/resources/220/rules?limit=1')).body).toMatchObject({ count: 2, next: '/cdn/resources/220/rules?limit=1&offset=1' });
      expect((await emu.call('GET', '/cdn/resources/999/rules')).status).toBe(404);
      expect((await emu.call('GET', '/cdn/resources/221/rules/5')).status).toBe(404);
    });

    it('creates (201) with unique names and patterns per resource, checking the pattern and options', async () => {
      const body = { name: 'css', rule: '/css/*', ruleType: 0, overrideOriginProtocol: 'HTTPS', options: { edge_cache_settings: { enabled: true, value: '1d' } } };
      const created = await emu.call('POST', '/cdn/resources/220/rules', { body });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ id: 7, name: 'css', originProtocol: 'HTTPS', weight: 1, options: { edge_cache_settings: { enabled: true, value: '1d' } } });
      expect((await emu.call('POST', '/cdn/resources/220/rules', { body })).body).toEqual({ errors: { name: ['This field should be unique.'] } });
      expect((await emu.call('POST', '/cdn/resources/220/rules', { body: { ...body, name: 'css2' } })).body).toEqual({
        errors: { rule: ['The field rule_string must be unique.'] },
      });
      expect((await emu.call('POST', '/cdn/resources/221/rules', { body })).status).toBe(201);
      expect((await emu.call('POST', '/cdn/resources/220/rules', { body: { name: 'bad', rule: 'no-slash', ruleType: 0 } })).body).toEqual({
        errors: { rule: ['Rule should be a valid regular expression - check it via https://regex101.com.'] },
      });
      expect((await emu.call('POST', '/cdn/resources/220/rules', { body: { name: 'x' } })).body).toEqual({
        errors: { rule: ['This field is required.'], ruleType: ['This field is required.'] },
      });
      expect(
        (await emu.call('POST', '/cdn/resources/220/rules', { body: { name: 'h3', rule: '/h3', ruleType: 0, options: { http3_enabled: { enabled: true, value: true } } } })).body,
      ).toEqual({
        errors: { options: { http3_enabled: ['Unknown option.'] } },
      });
    });

    it('PUT and PATCH change a rule; DELETE is refused while it is active', async () => {
      const put = await emu.call('PUT', '/cdn/resources/220/rules/5', { body: { rule: '/img/*', ruleType: 0, weight: 3 } });
      expect(put.body).toMatchObject({ id: 5, name: 'images', rule: '/img/*', weight: 3 });
      expect((await emu.call('PATCH', '/cdn/resources/220/rules/5', { body: { name: 'old' } })).status).toBe(400);
      expect(await emu.call('DELETE', '/cdn/resources/220/rules/5')).toMatchObject({ status: 400, body: { errors: [DELETE_ACTIVE] } });
      expect((await emu.call('PATCH', '/cdn/resources/220/rules/5', { body: { active: false } })).body.active).toBe(false);
      expect((await emu.call('DELETE', '/cdn/resources/220/rules/5')).status).toBe(204);
      expect((await emu.call('GET', '/cdn/resources/220/rules')).body.map((r: { id: number }) => r.id)).toEqual([6]);
    });
  });

  it('shows its records in the state dump and starts over on reset', async () => {
    await emu.call('POST', '/cdn/origin_groups', { body: { name: 'api', sources: [{ source: 'api.example.com' }] } });
    const dump = await emu.call('GET', '/__emulator/state');
    expect(dump.body.cdn_origin_groups.map((g: { id: number }) => g.id)).toEqual([10, 11, 12, 13]);
    expect(dump.body.cdn_rules[0]).toMatchObject({ resource: 220, id: 5 });
    emu.reset();
    expect([...emu.state.cdnOriginGroups.keys()]).toEqual([10, 11, 12]);
    expect((await emu.call('POST', '/cdn/origin_groups', { body: { name: 'api', sources: [{ source: 'api.example.com' }] } })).body.id).toBe(13);
  });

  it('checks the fixtures sections: options with the generated schemas, ids unique', () => {
    expect(() => loadFixtures({ cdn_resources: [{ id: 1, cname: 'a.example.com', originGroup: 1, options: { gzipon: { enabled: true, value: true } } }] } as never)).toThrow(
      EmulatorFixturesError,
    );
    expect(() => loadFixtures({ cdn_resources: [{ id: 1, cname: 'a.example.com', originGroup: 1, options: { gzipon: { enabled: true, value: true } } }] } as never)).toThrow(
      /cdn_resources\[0\]\.options/,
    );
    expect(() => loadFixtures({ cdn_rules: [{ id: 1, resource: 1, name: 'a', rule: '/a', options: { http3_enabled: { enabled: true, value: true } } }] } as never)).toThrow(
      /cdn_rules\[0\]\.options/,
    );
    expect(() =>
      loadFixtures({
        cdn_origin_groups: [
          { id: 1, name: 'a' },
          { id: 1, name: 'b' },
        ],
      }),
    ).toThrow(/cdn_origin_groups\[1\]: duplicate id 1/);
  });
});
