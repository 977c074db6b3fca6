import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deletableTypes, RESOURCE_TYPES } from '../../../src/kinds/registry.js';
import { EdgeformError } from '../../../src/errors.js';
import { parsePlanFile } from '../../../src/plan/saved-plan.js';
import type { ResourceChange } from '../../../src/plan/types.js';
import { payloadSchemas } from '../../../src/kinds/provider.js';
import { providers } from '../../../src/kinds/providers.js';
import { change, plan } from '../../helpers/plan.js';

const payloads = payloadSchemas(providers.resources);
const record = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
const name = fc.stringMatching(/^[a-z][a-z0-9_]{0,10}$/);

/** An update payload its provider accepts, per kind that can be updated. */
const updatePayload: Partial<Record<ResourceChange['type'], fc.Arbitrary<Record<string, unknown>>>> = {
  cloud_floating_ip: fc.record({
    tags_patch: fc.option(fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.option(fc.string({ maxLength: 8 }), { nil: null }), { maxKeys: 3 }), { nil: null }),
  }),
  cloud_instance: fc.record({ flavor_id: fc.string({ minLength: 1, maxLength: 12 }) }),
  cloud_k8s_cluster: fc.record({ upgrade_path: fc.array(fc.constantFrom('v1.30.6', 'v1.31.3'), { minLength: 1, maxLength: 2 }) }),
  iam_reseller_notification_setting: fc.record({ body: fc.record({ notification_type: fc.constant('failed_login'), email: fc.constant('a@example.com'), enabled: fc.boolean() }) }),
};

/** Any change the planner could write: a no-op with any observed data, a delete of a deletable kind, an update with its payload. */
const resourceChange = fc
  .tuple(fc.constantFrom(...RESOURCE_TYPES), name, record, fc.option(record, { nil: null }), fc.array(fc.string({ maxLength: 20 }), { maxLength: 2 }))
  .chain(([type, n, desired, before, notes]) => {
    const base = { address: `${type}.${n}`, desired: { ...desired, ensure: 'present' }, before, notes };
    const options: fc.Arbitrary<ResourceChange>[] = [fc.constant(change({ ...base, action: 'no-op' }))];
    if ((deletableTypes() as readonly string[]).includes(type)) options.push(fc.constant(change({ ...base, action: 'delete', desired: { ...desired, ensure: 'absent' } })));
    const payload = updatePayload[type];
    if (payload && payloads[type]) options.push(payload.map((p) => change({ ...base, action: 'update', payload: p, after: desired })));
    return fc.oneof(...options);
  });

const plans = fc.uniqueArray(resourceChange, { selector: (c) => c.address, maxLength: 6 }).map((changes) => plan(changes));

describe('plan files (property)', () => {
  it('read back exactly as written, for any plan the planner could write', () => {
    fc.assert(
      fc.property(plans, (p) => {
        const text = JSON.stringify(p);
        expect(parsePlanFile(text, 'plan.json', payloads)).toEqual(JSON.parse(text));
      }),
    );
  });

  it('cut anywhere, are refused with an edgeform error, never a crash', () => {
    fc.assert(
      fc.property(plans, fc.nat(), (p, at) => {
        const text = JSON.stringify(p);
        const cut = text.slice(0, at % text.length);
        expect(() => parsePlanFile(cut, 'plan.json', payloads)).toThrow(EdgeformError);
      }),
    );
  });

  it('with any one value replaced by another JSON value, are read back or refused with an edgeform error', () => {
    fc.assert(
      fc.property(plans, fc.nat(), fc.jsonValue({ maxDepth: 1 }), (p, at, value) => {
        const paths: (string | number)[][] = [];
        const walk = (v: unknown, path: (string | number)[]) => {
          paths.push(path);
          if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, [...path, Array.isArray(v) ? Number(k) : k]);
        };
        const json = JSON.parse(JSON.stringify(p)) as Record<string, unknown>;
        walk(json, []);
        const path = paths[at % paths.length]!;
        if (path.length === 0) return;
        let parent: any = json;
        for (const key of path.slice(0, -1)) parent = parent[key];
        parent[path.at(-1)!] = value;
        try {
          parsePlanFile(JSON.stringify(json), 'plan.json', payloads);
        } catch (error) {
          expect(error).toBeInstanceOf(EdgeformError);
        }
      }),
    );
  });
});
