import { describe, expect, it } from 'vitest';
import { deletableTypes, RESOURCE_KINDS, RESOURCE_TYPES, type ResourceType } from '../../../src/kinds/registry.js';
import { PlanFileError, StalePlanError } from '../../../src/errors.js';
import { comparePlans, describeStaleness, isPlanFileCandidate, looksLikePlanFile, parsePlanFile, savedTargets, toPlanDocument } from '../../../src/plan/saved-plan.js';
import { payloadSchemas } from '../../../src/kinds/provider.js';
import { providers } from '../../../src/kinds/providers.js';
import { PLAN_FORMAT_VERSION, type Plan, type ResourceChange, type SavedChange } from '../../../src/plan/types.js';
import { toPlanJson } from '../../../src/render/plan-json.js';
import { change, check, plan } from '../../helpers/plan.js';

const FIP = 'cloud_floating_ip.web_ip';

/** A valid update of each kind that has one, as the providers plan them. */
const updates: Record<string, Partial<ResourceChange> & Pick<ResourceChange, 'address' | 'action'>> = {
  fip: { address: FIP, action: 'update', payload: { tags_patch: { env: 'prod', owner: null } } },
  fipAllTags: { address: 'cloud_floating_ip.other', action: 'update', payload: { tags_patch: null } },
  instance: { address: 'cloud_instance.web_vm', action: 'update', payload: { flavor_id: 'g2-standard-4-8' } },
  k8s: { address: 'cloud_k8s_cluster.cluster', action: 'update', payload: { upgrade_path: ['v1.30.6', 'v1.31.3'] } },
  notification: {
    address: 'iam_reseller_notification_setting.login_alerts',
    action: 'update',
    payload: { body: { notification_type: 'failed_login', email: 'sec@example.com', enabled: true } },
  },
};

/** A delete as the planner writes it: the stack says ensure: absent. */
const deletion = (address: string, over: Partial<SavedChange> = {}) => change({ address, action: 'delete', desired: { ensure: 'absent' }, ...over });
const isDeletable = (type: ResourceType) => (deletableTypes() as readonly ResourceType[]).includes(type);

const text = (p: Plan | Record<string, unknown>) => JSON.stringify(p);
const parse = (p: Plan | Record<string, unknown>) => parsePlanFile(text(p), 'plan.json', payloadSchemas(providers.resources));
const failure = (p: Plan | Record<string, unknown>): Error => {
  try {
    parse(p);
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the plan to be refused');
};
/** A plan of one change, with a payload replaced (undefined removes it). */
const withPayload = (base: Partial<ResourceChange> & Pick<ResourceChange, 'address' | 'action'>, payload: Record<string, unknown> | undefined) => {
  const c = change({ ...base });
  if (payload === undefined) delete c.payload;
  else c.payload = payload;
  return plan([c]);
};

describe('parsePlanFile', () => {
  it('reads back a plan of every kind of update and a delete', () => {
    const p = plan([...Object.values(updates).map((u) => change(u)), deletion('fastedge_app.legacy')]);
    expect(parse(p)).toEqual(p);
  });

  describe('format version', () => {
    it('reads its own format', () => {
      expect(parse(plan([])).format_version).toBe(PLAN_FORMAT_VERSION);
    });

    it('refuses a newer minor version, written by a newer edgeform', () => {
      const [major, minor] = PLAN_FORMAT_VERSION.split('.').map(Number) as [number, number];
      const newer = `${major}.${minor + 1}`;
      const error = failure({ ...plan([]), format_version: newer });
      expect(error).toBeInstanceOf(StalePlanError);
      expect(error.message).toContain(`plan format ${newer}`);
      expect(error.message).toContain('newer edgeform');
    });

    it('refuses another major version', () => {
      const major = Number(PLAN_FORMAT_VERSION.split('.')[0]);
      expect(failure({ ...plan([]), format_version: `${major + 1}.0` })).toBeInstanceOf(StalePlanError);
      expect(failure({ ...plan([]), format_version: `${major - 1}.9` })).toBeInstanceOf(StalePlanError);
    });

    it('refuses a format version that is not MAJOR.MINOR', () => {
      for (const version of ['1', 'one', '1.x', '', 1]) {
        const error = failure({ ...plan([]), format_version: version });
        expect(error).toBeInstanceOf(PlanFileError);
        expect(error.message).toContain('format_version');
      }
    });
  });

  describe('replaced_because (format 2.3)', () => {
    const withBecause = (because: unknown) => {
      const p = plan([
        change({ address: 'cloud_subnet.app', action: 'replace', desired: {} }),
        change({ address: 'cloud_instance.vm', action: 'replace', desired: {}, depends_on: ['cloud_subnet.app'] }),
      ]);
      (p.resource_changes[1] as unknown as Record<string, unknown>).replaced_because = because;
      return p;
    };

    it('reads back the replacements a replace was forced by, as the plan document writes them', () => {
      const p = withBecause(['cloud_subnet.app']);
      expect(parse(toPlanJson(p)).resource_changes[1]!.replaced_because).toEqual(['cloud_subnet.app']);
    });

    it('refuses one that is not a list of addresses', () => {
      for (const because of [[], ['cloud_subnet'], 'cloud_subnet.app', [1]]) {
        const error = failure(withBecause(because));
        expect(error).toBeInstanceOf(PlanFileError);
        expect(error.message).toContain('resource_changes.1.replaced_because');
      }
    });
  });

  describe('resource types', () => {
    it('accepts every resource type edgeform manages', () => {
      const p = plan(RESOURCE_TYPES.map((type) => (isDeletable(type) ? deletion(`${type}.x`) : change({ address: `${type}.x`, action: 'no-op' }))));
      expect(parse(p).resource_changes.map((c) => c.type)).toEqual([...RESOURCE_TYPES]);
    });

    it('refuses an unknown type', () => {
      const error = failure(plan([change({ address: 'cloud_bogus.x', action: 'delete' })]));
      expect(error).toBeInstanceOf(PlanFileError);
      expect(error.message).toContain('resource_changes.0.type');
    });
  });

  describe('update payloads', () => {
    it('accepts tags: null (every user tag removed) as a floating IP patch', () => {
      expect(parse(plan([change(updates.fipAllTags!)])).resource_changes[0]!.payload).toEqual({ tags_patch: null });
    });

    const refused: Array<[string, keyof typeof updates, Record<string, unknown> | undefined, string]> = [
      ['a floating IP update without a payload', 'fip', undefined, 'payload'],
      ['a floating IP update without tags_patch (it would remove every user tag)', 'fip', {}, 'payload.tags_patch'],
      ['a floating IP patch with a number value', 'fip', { tags_patch: { env: 1 } }, 'payload.tags_patch.env'],
      ['a floating IP patch that is a list', 'fip', { tags_patch: ['env'] }, 'payload.tags_patch'],
      ['an instance update without flavor_id', 'instance', {}, 'payload.flavor_id'],
      ['an instance update with a numeric flavor_id', 'instance', { flavor_id: 4 }, 'payload.flavor_id'],
      ['a cluster upgrade without a path', 'k8s', {}, 'payload.upgrade_path'],
      ['a cluster upgrade with an empty path', 'k8s', { upgrade_path: [] }, 'payload.upgrade_path'],
      ['a cluster upgrade path of numbers', 'k8s', { upgrade_path: [1, 2] }, 'payload.upgrade_path.0'],
      ['a notification update without a body', 'notification', {}, 'payload.body'],
      ['a notification body without enabled', 'notification', { body: { notification_type: 'failed_login', email: 'a@b.c' } }, 'payload.body.enabled'],
      ['a notification body without email', 'notification', { body: { notification_type: 'failed_login', enabled: true } }, 'payload.body.email'],
    ];
    for (const [what, kind, payload, path] of refused) {
      it(`refuses ${what}, naming the address and the field`, () => {
        const error = failure(withPayload(updates[kind]!, payload));
        expect(error).toBeInstanceOf(PlanFileError);
        expect(error.message).toContain(updates[kind]!.address);
        expect(error.message).toContain(path);
      });
    }

    it('refuses an update of a kind that cannot be updated in place', () => {
      const error = failure(plan([change({ address: 'cloud_quota_limit_request.stale', action: 'update', payload: {} })]));
      expect(error).toBeInstanceOf(PlanFileError);
      expect(error.message).toContain('cloud_quota_limit_request.stale');
      expect(error.message).toContain('cannot be updated');
    });

    it('does not look at the payload of a delete or a no-op', () => {
      expect(() => parse(plan([change({ address: FIP, action: 'no-op' }), deletion('streaming_player.old')]))).not.toThrow();
    });
  });

  describe('action against the kind and ensure', () => {
    const refusal = (c: ResourceChange): Error => {
      const error = failure(plan([c]));
      expect(error).toBeInstanceOf(PlanFileError);
      expect(error.message).toContain(c.address);
      return error;
    };

    it('accepts a delete of every kind edgeform can delete when ensure is absent', () => {
      expect(deletableTypes().length).toBeGreaterThan(0);
      expect(() => parse(plan(deletableTypes().map((type) => deletion(`${type}.x`))))).not.toThrow();
    });

    for (const type of RESOURCE_TYPES.filter((t) => !isDeletable(t))) {
      it(`refuses a delete of ${type}, which edgeform cannot delete`, () => {
        expect(refusal(deletion(`${type}.x`)).message).toContain(`edgeform cannot delete a ${type}`);
      });
    }

    it('refuses the floating IP update edited to action: delete (the stack keeps the IP: ensure is present)', () => {
      const edited = change({ ...updates.fip!, action: 'delete', desired: { ensure: 'present' } });
      expect(refusal(edited).message).toContain('a delete needs desired.ensure: absent');
    });

    it('refuses a delete when desired.ensure is not absent', () => {
      for (const desired of [{ ensure: 'present' }, {}]) {
        const message = refusal(deletion('fastedge_app.legacy', { desired })).message;
        expect(message).toContain('resource_changes.0');
        expect(message).toContain('ensure');
      }
    });

    it('refuses an update when desired.ensure is absent', () => {
      const message = refusal(change({ ...updates.instance!, desired: { ensure: 'absent' } })).message;
      expect(message).toContain('update');
      expect(message).toContain('ensure');
    });

    it('accepts a no-op whatever ensure says (already absent, or nothing to change)', () => {
      expect(() =>
        parse(
          plan([
            change({ address: 'fastedge_app.gone', action: 'no-op', desired: { ensure: 'absent' } }),
            change({ address: FIP, action: 'no-op', desired: { ensure: 'present' } }),
          ]),
        ),
      ).not.toThrow();
    });
  });

  describe('the JSON rendering of a plan (plan --format json)', () => {
    it('is the plan file document: it reads back as the plan it renders', () => {
      const p = plan([change(updates.fip!), deletion('fastedge_app.legacy')], [check({ address: 'streaming_video_subtitles.subs', status: 'pass', message: 'ok' })]);
      expect(toPlanJson(p)).toEqual(JSON.parse(text(p)));
      expect(parse(toPlanJson(p))).toEqual(JSON.parse(text(p)));
    });

    it('of format 1.0 (Terraform-style change.actions) is refused as the output of an older edgeform', () => {
      const old = { ...plan([]), format_version: PLAN_FORMAT_VERSION, resource_changes: [{ address: FIP, change: { actions: ['update'] } }] };
      const error = failure(old);
      expect(error).toBeInstanceOf(StalePlanError);
      expect(error.message).toContain('Run edgeform plan again');
    });
  });

  it('refuses a plan with errors, unless asked to allow it (edgeform show)', () => {
    const errored = plan([], [], { diagnostics: [{ severity: 'error', code: 'plan-error', summary: 'reading x failed' }] });
    expect(failure(errored)).toBeInstanceOf(PlanFileError);
    expect(parsePlanFile(text(errored), 'plan.json', payloadSchemas(providers.resources), { allowErrored: true }).errored).toBe(true);
  });

  it('refuses a resource change whose action is read (the action of checks)', () => {
    const p = plan([change({ address: 'cloud_instance.web_vm', action: 'no-op' })]);
    (p.resource_changes[0] as { action: string }).action = 'read';
    expect(failure(p)).toBeInstanceOf(PlanFileError);
  });

  it('still refuses a plan with errors', () => {
    const p = plan([], [], { diagnostics: [{ severity: 'error', code: 'X', summary: 'bad' }] as Plan['diagnostics'] });
    expect(failure(p)).toBeInstanceOf(PlanFileError);
  });
});

describe('comparePlans', () => {
  const fip = () =>
    change({ ...updates.fip!, desired: { floating_ip_id: 'x', tags: { env: 'prod' } }, before: { tags: { env: 'dev', owner: 'a' } }, after: { tags: { env: 'prod' } } });
  const saved = () => plan([fip()]);

  it('finds nothing when the fresh plan is the saved one (lock ids, warnings and check results aside)', () => {
    const fresh = plan([{ ...fip(), lock_task_id: 'task-1', warnings: ['locked'] }]);
    expect(comparePlans(saved(), fresh)).toEqual([]);
  });

  it('names how the platform changed when the observed fields differ, not the fields that follow from it', () => {
    const moved = { ...fip(), before: { tags: { env: 'staging', owner: 'a' } }, payload: { tags_patch: { env: 'prod', owner: null, x: null } } };
    expect(comparePlans(saved(), plan([moved]))).toEqual([{ address: FIP, differences: ['tags: {"env":"dev","owner":"a"} when planned, now {"env":"staging","owner":"a"}'] }]);
  });

  it('names an edited replaced_because when the platform did not change', () => {
    const edited = saved();
    (edited.resource_changes[0] as unknown as Record<string, unknown>).replaced_because = ['cloud_subnet.app'];
    expect(comparePlans(edited, saved())[0]?.differences.join('\n')).toContain('replaced_because in the plan file');
  });

  for (const field of ['payload', 'desired', 'after', 'changes', 'depends_on', 'action'] as const) {
    it(`names an edited ${field} when the platform did not change`, () => {
      const edited = saved();
      (edited.resource_changes[0] as unknown as Record<string, unknown>)[field] =
        field === 'action' ? 'delete' : field === 'depends_on' ? ['cloud_instance.x'] : field === 'changes' ? [{ path: ['x'], op: 'add', after: 1 }] : { edited: true };
      const [stale] = comparePlans(edited, saved());
      expect(stale?.address).toBe(FIP);
      expect(stale?.differences.join('\n')).toContain(`${field} in the plan file`);
    });
  }

  it('names a change in only one of the two plans', () => {
    const extra = change({ address: 'fastedge_app.legacy', action: 'delete', desired: { ensure: 'absent' } });
    expect(comparePlans(plan([fip(), extra]), saved()).map((s) => s.address)).toEqual(['fastedge_app.legacy']);
    expect(comparePlans(saved(), plan([fip(), extra]))[0]?.differences).toEqual(['a plan of this stack now has it, but the plan file does not']);
  });

  it('names a check whose attributes were edited, but not one whose result changed', () => {
    const gate = check({ address: 'streaming_video_subtitles.tour', status: 'pass', message: 'ok', desired: { video_id: 1, languages: ['eng'] } });
    expect(comparePlans(plan([fip()], [gate]), plan([fip()], [{ ...gate, status: 'fail', message: 'missing eng' }]))).toEqual([]);
    const edited = { ...gate, desired: { video_id: 1, languages: [] } };
    expect(comparePlans(plan([fip()], [edited]), plan([fip()], [gate])).map((s) => s.address)).toEqual(['streaming_video_subtitles.tour']);
  });
});

describe('savedTargets', () => {
  const p = plan([change({ address: FIP, action: 'no-op' })]);
  it('is empty when the plan covers the whole stack, else the covered addresses', () => {
    expect(savedTargets(p, [FIP])).toEqual([]);
    expect(savedTargets(p, [FIP, 'cloud_instance.web_vm'])).toEqual([FIP]);
  });
  it('refuses an address the stack does not declare', () => {
    expect(() => savedTargets(p, ['cloud_instance.web_vm'])).toThrow(StalePlanError);
  });
});

describe('isPlanFileCandidate', () => {
  const bytes = (s: string) => Buffer.from(s);
  it('reads *.yaml and *.yml as stacks whatever they hold', () => {
    expect(isPlanFileCandidate('stack.yaml', bytes('{"format_version": "1.0"}'))).toBe(false);
    expect(isPlanFileCandidate('STACK.YML', Buffer.from([0, 1, 2]))).toBe(false);
  });
  it('reads *.json, JSON-looking text and binary content as plan files', () => {
    expect(isPlanFileCandidate('plan.json', bytes('version: 1'))).toBe(true);
    expect(isPlanFileCandidate('plan', bytes('\ufeff  \n{"format_ver'))).toBe(true);
    expect(isPlanFileCandidate('plan.bin', Buffer.from([0x00, 0x13, 0x37]))).toBe(true);
    expect(isPlanFileCandidate('plan.bin', Buffer.from([0xff, 0xfe, 0x41]))).toBe(true);
  });
  it('reads other text as a stack', () => {
    expect(isPlanFileCandidate('stack', bytes('version: 1\nresources: {}\n'))).toBe(false);
  });
});

describe('a depends_on structure the planner could not have written', () => {
  it('refuses a cycle, naming it', () => {
    const a = change({ address: 'cloud_instance.a', action: 'no-op', depends_on: ['cloud_instance.b'] });
    const b = change({ address: 'cloud_instance.b', action: 'no-op', depends_on: ['cloud_instance.a'] });
    const error = failure(plan([a, b]));
    expect(error).toBeInstanceOf(PlanFileError);
    expect(error.message).toMatch(/corrupt plan file: dependency cycle cloud_instance\.(a|b) -> cloud_instance\.(a|b) -> cloud_instance\.(a|b)/);
  });
  it('refuses a dependency that is not in the plan', () => {
    expect(failure(plan([change({ address: 'cloud_instance.a', action: 'no-op', depends_on: ['cloud_instance.gone'] })])).message).toContain(
      'depends on cloud_instance.gone, which is not in the plan',
    );
  });
});

describe('the plan document keeps every field of a plan', () => {
  /** A change carrying every optional field a plan may hold, each with a value parsePlanFile accepts. */
  const full = (): ResourceChange =>
    change({
      address: 'fastedge_app.api',
      action: 'replace',
      desired: { name: 'api', binary: 7, env: { IP: '${cloud_floating_ip.web_ip.floating_ip_address}' } },
      before: { app_id: 3, name: 'api' },
      after: { app_id: '(known after apply)', name: 'api' },
      changes: [{ path: ['binary'], op: 'update', before: 6, after: 7, forces_replacement: true }],
      payload: { name: 'api', binary: 7 },
      depends_on: ['cloud_floating_ip.web_ip'],
      unchanged_elements: { env: 2 },
      identity: 'name = api',
      destroy_note: 'the old app goes first',
      moved_from: 'old-stack/fastedge_app.api',
      sensitive: [{ path: ['env', 'TOKEN'], env: 'API_TOKEN' }],
      resend_sensitive: true,
      replaced_because: ['cloud_floating_ip.web_ip'],
      references: [{ path: ['env', 'IP'], template: '${cloud_floating_ip.web_ip.floating_ip_address}', stringify: true }],
      after_unknown: { app_id: true },
      follow_up: { step: 'purge', summary: 'purge the cache', changes: [], notes: ['a note'], payload: { paths: ['/*'] } },
    });
  const pruned = () => deletion('fastedge_app.old', { pruned: true, warnings: ['w'], notes: ['n'] });
  const fullPlan = () =>
    plan(
      [change({ address: FIP, action: 'no-op' }), full(), pruned()],
      [check({ address: 'streaming_video_subtitles.tour', status: 'fail', message: 'missing', details: { missing: ['eng'] }, depends_on: [FIP] })],
      {
        stack: { sources: ['a.yaml', 'b.yaml'], digest: 'e'.repeat(64), name: 'prod' },
        diagnostics: [
          {
            severity: 'warning',
            code: 'w-1',
            summary: 'a warning',
            detail: 'more',
            address: FIP,
            range: { filename: 'a.yaml', start: { line: 2, column: 3 }, end: { line: 2, column: 9 } },
          },
          { severity: 'warning', code: 'w-2', summary: 'bare' },
        ],
      },
    );

  it('writes every optional field of a change, a check, a diagnostic and the stack, and reads them all back', () => {
    const p = fullPlan();
    const document = toPlanDocument(p);
    expect(document).toEqual(JSON.parse(JSON.stringify(p)));
    expect(parse(document)).toEqual(p);
  });

  it('writes nothing for the optional fields a change does not have', () => {
    const bare = toPlanDocument(plan([change({ address: FIP, action: 'no-op' })])) as { stack: object; resource_changes: object[] };
    expect(Object.keys(bare.resource_changes[0]!)).toEqual([
      'address',
      'type',
      'name',
      'action',
      'desired',
      'before',
      'after',
      'changes',
      'fingerprint',
      'lock_task_id',
      'depends_on',
      'warnings',
      'notes',
    ]);
    expect(bare.stack).toEqual({ sources: ['stack.yaml'], digest: 'd'.repeat(64) });
    expect(toPlanDocument(plan([], [], { stack: { sources: ['s.yaml'], digest: 'd'.repeat(64), name: null } })).stack).toEqual({ sources: ['s.yaml'], digest: 'd'.repeat(64) });
  });

  const fields = [
    'identity',
    'moved_from',
    'sensitive',
    'resend_sensitive',
    'replaced_because',
    'references',
    'after_unknown',
    'follow_up',
    'destroy_note',
    'unchanged_elements',
    'payload',
  ] as const;
  for (const field of fields) {
    it(`names ${field} dropped from a saved plan when the fresh plan has it`, () => {
      const saved = fullPlan();
      delete (saved.resource_changes[1] as unknown as Record<string, unknown>)[field];
      const stale = comparePlans(saved, fullPlan());
      expect(stale).toEqual([{ address: 'fastedge_app.api', differences: [`${field} in the plan file is not what the stack and the platform give now`] }]);
    });
  }

  it('names pruned, type and name edited in a saved plan', () => {
    const saved = fullPlan();
    delete (saved.resource_changes[2] as unknown as Record<string, unknown>).pruned;
    (saved.resource_changes[1] as unknown as Record<string, unknown>).name = 'other';
    (saved.resource_changes[1] as unknown as Record<string, unknown>).type = 'cloud_instance';
    expect(comparePlans(saved, fullPlan())).toEqual([
      { address: 'fastedge_app.api', differences: ['type, name in the plan file are not what the stack and the platform give now'] },
      { address: 'fastedge_app.old', differences: ['pruned in the plan file is not what the stack and the platform give now'] },
    ]);
  });

  it('names a plan file with only its fingerprint edited', () => {
    const saved = fullPlan();
    saved.resource_changes[0]!.fingerprint = 'f'.repeat(64);
    expect(comparePlans(saved, fullPlan())).toEqual([{ address: FIP, differences: ['fingerprint in the plan file is not what the stack and the platform give now'] }]);
  });

  it('names an edited check type or dependency, and a check only one plan has', () => {
    const p = fullPlan();
    const moved = { ...p, checks: [{ ...p.checks[0]!, depends_on: [] }] };
    expect(comparePlans(moved, fullPlan()).map((s) => [s.address, s.differences])).toEqual([
      ['streaming_video_subtitles.tour', ['the check in the plan file is not the check of this stack']],
    ]);
    expect(comparePlans({ ...p, checks: [] }, fullPlan())).toEqual([
      { address: 'streaming_video_subtitles.tour', differences: ['a plan of this stack now has this check, but the plan file does not'] },
    ]);
    expect(comparePlans(fullPlan(), { ...p, checks: [] })).toEqual([
      { address: 'streaming_video_subtitles.tour', differences: ['the check in the plan file is not the check of this stack'] },
    ]);
  });
});

describe('describeStaleness', () => {
  it('says a resource appeared, vanished, or which fields changed, unset ones included', () => {
    expect(describeStaleness({ address: FIP, before: null }, { a: 1 }).differences).toEqual(['did not exist when planned, exists now']);
    expect(describeStaleness({ address: FIP, before: { a: 1 } }, null).differences).toEqual(['existed when planned, is gone now']);
    expect(describeStaleness({ address: FIP, before: null }, null).differences).toEqual([]);
    expect(describeStaleness({ address: FIP, before: { a: 1, b: 'x', same: [1] } }, { a: 2, c: true, same: [1] })).toEqual({
      address: FIP,
      differences: ['a: 1 when planned, now 2', 'b: "x" when planned, now (unset)', 'c: (unset) when planned, now true'],
    });
  });
});

describe('savedTargets and prune', () => {
  const kept = change({ address: FIP, action: 'no-op' });
  const other = change({ address: 'cloud_instance.web_vm', action: 'no-op' });
  const prunedOne = deletion('fastedge_app.legacy', { pruned: true });

  it('covers the whole stack when a plan prunes and holds every block (what prune destroys is not a block)', () => {
    expect(savedTargets(plan([kept, other, prunedOne]), [FIP, 'cloud_instance.web_vm'])).toEqual([]);
  });

  it('refuses a plan that prunes but covers only some blocks: a targeted plan never prunes', () => {
    expect(() => savedTargets(plan([kept, prunedOne]), [FIP, 'cloud_instance.web_vm'])).toThrow(StalePlanError);
    expect(() => savedTargets(plan([kept, prunedOne]), [FIP, 'cloud_instance.web_vm'])).toThrow('the saved plan prunes, but does not cover every block of its stack');
  });

  it('counts checks among what a plan covers', () => {
    const gate = check({ address: 'streaming_video_subtitles.tour', status: 'pass', message: 'ok' });
    expect(savedTargets(plan([kept], [gate]), [FIP, 'streaming_video_subtitles.tour'])).toEqual([]);
    expect(savedTargets(plan([kept], [gate]), [FIP, 'streaming_video_subtitles.tour', 'cloud_instance.web_vm'])).toEqual([FIP, 'streaming_video_subtitles.tour']);
  });
});

describe('parsePlanFile refuses, each with its whole message', () => {
  const refusal = (p: Plan | Record<string, unknown>) => {
    const error = failure(p);
    expect(error).toBeInstanceOf(PlanFileError);
    return error.message;
  };

  it('text that is not JSON', () => {
    expect(() => parsePlanFile('{"format_version": ', 'plan.json', {})).toThrow(
      /^plan\.json is a corrupt plan file: it is not valid JSON \(.+\)\. Save a new one with edgeform plan --out FILE\.$/,
    );
  });

  it('another major format version, with the format this edgeform reads', () => {
    const major = Number(PLAN_FORMAT_VERSION.split('.')[0]);
    expect(failure({ ...plan([]), format_version: `${major + 1}.0` }).message).toBe(
      `plan.json was written in plan format ${major + 1}.0; this edgeform reads format ${PLAN_FORMAT_VERSION}. Run edgeform plan again.`,
    );
    expect(refusal({ ...plan([]), format_version: 'one' })).toBe('plan.json is a corrupt plan file: format_version: expected "MAJOR.MINOR", got "one"');
    const { format_version: _, ...without } = plan([]);
    expect(refusal(without)).toBe('plan.json is a corrupt plan file: format_version: expected "MAJOR.MINOR", got nothing');
  });

  it('an address twice, or one that is not its type and name', () => {
    const twice = plan([change({ address: FIP, action: 'no-op' }), change({ address: FIP, action: 'no-op' })]);
    expect(refusal(twice)).toBe(`plan.json is a corrupt plan file: ${FIP} appears more than once`);
    const renamed = plan([{ ...change({ address: FIP, action: 'no-op' }), name: 'other' }]);
    expect(refusal(renamed)).toBe(`plan.json is a corrupt plan file: address ${FIP} does not match type cloud_floating_ip and name other`);
  });

  it('a create or replace of a resource the stack deletes, and a create of a kind edgeform cannot create', () => {
    expect(refusal(plan([change({ address: 'fastedge_app.a', action: 'create', desired: { ensure: 'absent' } })]))).toBe(
      'plan.json is a corrupt plan file: resource_changes.0 (fastedge_app.a): action: a create of a resource whose desired.ensure is absent',
    );
    expect(refusal(plan([change({ address: 'fastedge_app.a', action: 'replace', desired: { ensure: 'absent' } })]))).toBe(
      'plan.json is a corrupt plan file: resource_changes.0 (fastedge_app.a): action: a replace of a resource whose desired.ensure is absent',
    );
    const adoptOnly = RESOURCE_TYPES.find((t) => RESOURCE_KINDS[t].create === undefined)!;
    expect(refusal(plan([change({ address: `${adoptOnly}.x`, action: 'create' })]))).toBe(
      `plan.json is a corrupt plan file: resource_changes.0 (${adoptOnly}.x): action: edgeform cannot create a ${adoptOnly}`,
    );
    expect(refusal(plan([change({ address: `${adoptOnly}.x`, action: 'replace' })]))).toContain(`edgeform cannot create a ${adoptOnly}`);
  });

  it('an update without its payload, but not one whose references apply resolves', () => {
    expect(refusal(withPayload(updates.fip!, undefined))).toBe(`plan.json is a corrupt plan file: resource_changes.0 (${FIP}): payload: an update needs its payload`);
    const pending = change({ ...updates.fip!, references: [{ path: ['tags', 'ip'], template: '${cloud_floating_ip.other.id}' }] });
    delete pending.payload;
    expect(parse(plan([pending, change({ address: 'cloud_floating_ip.other', action: 'no-op' })])).resource_changes[0]!.references).toHaveLength(1);
  });

  it('a plan with errors', () => {
    expect(refusal({ ...plan([]), errored: true })).toBe('plan.json is a plan with errors; it cannot be applied. Fix them and run edgeform plan again.');
    expect(parsePlanFile(text({ ...plan([]), errored: true }), 'plan.json', {}, { allowErrored: true }).errored).toBe(true);
  });
});

describe('looksLikePlanFile', () => {
  it('is a JSON object with format_version and resource_changes, after any leading blanks', () => {
    expect(looksLikePlanFile(` \n${text(plan([]))}`)).toBe(true);
    expect(looksLikePlanFile('{"format_version": "1.0"}')).toBe(false);
    expect(looksLikePlanFile('{"resource_changes": []}')).toBe(false);
    expect(looksLikePlanFile('{ not json')).toBe(false);
    expect(looksLikePlanFile('version: 1\n')).toBe(false);
    expect(looksLikePlanFile('[{"format_version": "1.0", "resource_changes": []}]')).toBe(false);
  });
});

describe('savedTargets names what its stack does not declare', () => {
  it('every such address, and nothing is applied', () => {
    const p = plan([
      change({ address: FIP, action: 'no-op' }),
      change({ address: 'fastedge_app.gone', action: 'no-op' }),
      change({ address: 'fastedge_app.also', action: 'no-op' }),
    ]);
    expect(() => savedTargets(p, [FIP])).toThrow(
      'the saved plan has fastedge_app.gone, fastedge_app.also, which its stack does not declare; nothing was applied. Run edgeform plan again and review the new plan.',
    );
  });
});

describe('parsePlanFile refuses, each with its whole message (the edges)', () => {
  const refusal = (p: unknown) => {
    let thrown: unknown;
    try {
      parsePlanFile(JSON.stringify(p), 'plan.json', payloadSchemas(providers.resources));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(PlanFileError);
    return (thrown as Error).message;
  };
  const [major, minor] = PLAN_FORMAT_VERSION.split('.').map(Number) as [number, number];

  it('a document that is null, or whose resource_changes is not a list, as a corrupt file', () => {
    expect(refusal(null)).toBe('plan.json is a corrupt plan file: format_version: expected "MAJOR.MINOR", got nothing');
    expect(refusal({ ...plan([]), resource_changes: 'none' })).toBe('plan.json is a corrupt plan file: resource_changes: Invalid input: expected array, received string');
  });

  it('a key of its own at the top of the document, at (root)', () => {
    expect(refusal({ ...plan([]), extra: 1 })).toBe('plan.json is a corrupt plan file: (root): Unrecognized key: "extra"');
  });

  it('a format version that is a number, has more than two parts, or text around it', () => {
    for (const version of [Number(PLAN_FORMAT_VERSION), `${PLAN_FORMAT_VERSION}.0`, `v${PLAN_FORMAT_VERSION}`]) {
      expect(refusal({ ...plan([]), format_version: version })).toBe(`plan.json is a corrupt plan file: format_version: expected "MAJOR.MINOR", got ${JSON.stringify(version)}`);
    }
  });

  it('a format version of several digits by what it says: another major version, or a newer minor one', () => {
    const stale = (version: string) => {
      try {
        parsePlanFile(JSON.stringify({ ...plan([]), format_version: version }), 'plan.json', {});
      } catch (error) {
        return [(error as Error).constructor.name, (error as Error).message];
      }
      return undefined;
    };
    expect(stale(`${major + 10}.0`)).toEqual([
      'StalePlanError',
      `plan.json was written in plan format ${major + 10}.0; this edgeform reads format ${PLAN_FORMAT_VERSION}. Run edgeform plan again.`,
    ]);
    expect(stale(`${major}.${minor + 10}`)?.[0]).toBe('StalePlanError');
    expect(stale(`${major}.${minor + 10}`)?.[1]).toContain(`was written in plan format ${major}.${minor + 10} by a newer edgeform`);
  });

  it('a delete whose desired says nothing of ensure, and an update of a resource the stack deletes', () => {
    expect(refusal(plan([deletion('fastedge_app.legacy', { desired: {} })]))).toBe(
      'plan.json is a corrupt plan file: resource_changes.0 (fastedge_app.legacy): action: a delete needs desired.ensure: absent, got nothing',
    );
    expect(refusal(plan([change({ ...updates.instance!, desired: { ensure: 'absent' } })]))).toBe(
      'plan.json is a corrupt plan file: resource_changes.0 (cloud_instance.web_vm): action: an update of a resource whose desired.ensure is absent',
    );
  });
});

describe('the plan document, its optional parts', () => {
  const cost = {
    lines: [{ addresses: [FIP], type: 'cloud_floating_ip', action: 'update' as const }],
    totals: [{ currency: 'EUR', before: 1, after: 2, difference: 1 }],
    not_priced: [],
    hidden: false,
    unknown: 0,
  };

  it('writes the cost of a plan made with --cost, reads it back, and writes no cost key without it', () => {
    const priced = plan([change({ address: FIP, action: 'no-op' })], [], { cost } as Partial<Plan>);
    expect((toPlanDocument(priced) as { cost?: unknown }).cost).toEqual(cost);
    expect(parse(toPlanDocument(priced)).cost).toEqual(cost);
    expect(Object.keys(toPlanDocument(plan([])))).not.toContain('cost');
  });

  it('writes no key for a stack without a name, a check without details, a diagnostic without detail or address', () => {
    const document = toPlanDocument(
      plan([], [check({ address: 'streaming_video_subtitles.tour', status: 'pass', message: 'ok' })], { diagnostics: [{ severity: 'warning', code: 'w', summary: 'bare' }] }),
    ) as { stack: object; checks: object[]; diagnostics: object[] };
    expect(Object.keys(document.stack)).toEqual(['sources', 'digest']);
    expect(Object.keys(document.checks[0]!)).not.toContain('details');
    expect(Object.keys(document.diagnostics[0]!)).toEqual(['severity', 'code', 'summary']);
  });
});

describe('comparePlans, a change the fresh plan no longer has', () => {
  it('says so for its address', () => {
    const gone = change({ address: 'fastedge_app.legacy', action: 'delete', desired: { ensure: 'absent' } });
    expect(comparePlans(plan([gone]), plan([]))).toEqual([
      { address: 'fastedge_app.legacy', differences: ['is in the plan file, but a plan of this stack now has no change for it'] },
    ]);
  });
});

describe('isPlanFileCandidate, by the end of its name and its first bytes', () => {
  const bytes = (s: string) => Buffer.from(s);
  it('goes by the last extension only', () => {
    expect(isPlanFileCandidate('plan.yaml.json', bytes('version: 1'))).toBe(true);
    expect(isPlanFileCandidate('notes.json.txt', bytes('version: 1'))).toBe(false);
  });

  it('skips a byte order mark and blanks (tabs and carriage returns too) before the brace', () => {
    expect(isPlanFileCandidate('plan', bytes('\r\n{"format_version"'))).toBe(true);
    expect(isPlanFileCandidate('plan', bytes('\t{"format_version"'))).toBe(true);
  });

  it('reads text whose first character only resembles a byte order mark in some of its bytes as text', () => {
    // U+2EFF, U+FF3F, U+FEFE, U+203F, U+F03F: three UTF-8 bytes each, sharing one or two with the mark (EF BB BF).
    for (const first of ['\u2eff', '\uff3f', '\ufefe', '\u203f', '\uf03f']) expect(isPlanFileCandidate('plan', bytes(`${first}{"format_version"`)), first).toBe(false);
  });
});
