import { z } from 'zod';
import { lookalikeOf } from './tag-key-lookalike.js';

/**
 * Field schemas shared by several kinds. Messages name the rule the platform enforces, so a
 * diagnostic built from them explains itself; generic wording (wrong type, unknown field)
 * comes from src/config/describe-issue.ts.
 */

/** A platform integer id (project_id, app_id, ...): an integer of at least 1. */
export const positiveId = z.int().min(1, { error: 'must be a positive integer (1 or more)' });

/** A platform UUID (floating_ip_id, instance_id, AI task_id). */
export const uuid = z.uuid({ error: 'must be a UUID such as 726ecfcc-7fd0-4e30-a86e-7892524aa483' });

/** A string that must not be empty (cluster_name, flavor_id). */
export const nonEmptyString = z.string().min(1, { error: 'must not be empty' });

/** Cloud project id; usually set once under `defaults:`. */
export const projectId = positiveId.describe('Cloud project id (integer). Usually set once under defaults:.');

/** Cloud region id; usually set once under `defaults:`. */
export const regionId = positiveId.describe('Cloud region id (integer). Usually set once under defaults:.');

/** A tag key as the platform accepts it: 1..255 characters, no `=` and no whitespace. */
export const tagKey = z
  .string()
  .min(1, { error: 'a tag key must not be empty' })
  .max(255, { error: 'a tag key must be at most 255 characters' })
  .regex(/^[^\s=]+$/, { error: 'a tag key must not contain "=" or whitespace' });

/** A tag value: 1..255 characters, no tabs or newlines, no leading or trailing whitespace. */
export const tagValue = z
  .string()
  .min(1, { error: 'a tag value must not be empty (use null to remove the tag)' })
  .max(255, { error: 'a tag value must be at most 255 characters' })
  .regex(/^[^\t\n\r]*$/, { error: 'a tag value must not contain tabs or newlines' })
  .regex(/^(\S.*\S|\S)$/s, { error: 'a tag value must not start or end with whitespace' });

/** Desired user tags: key → value, or null to remove the key (RFC 7386 merge patch). */
export const tags = z.record(tagKey, tagValue.nullable()).describe('User tags, key → value. A null value removes the tag. Read-only tags cannot be set.');

/** How `tags` is applied: authoritative removes unlisted user tags, merge leaves them alone. */
export const tagsPolicy = z
  .enum(['authoritative', 'merge'])
  .default('authoritative')
  .describe('authoritative (default): live user tags not listed are removed. merge: only listed keys are managed.');

/** How `tags` is applied: `authoritative` or `merge`. */
export type TagsPolicy = z.output<typeof tagsPolicy>;

/** `ensure` of a kind edgeform can delete: present (default) or absent. */
export const ensureDeletable = z.enum(['present', 'absent']).default('present').describe('present (default) keeps the object; absent deletes it (already gone is a no-op).');

/** `ensure` of a kind edgeform cannot delete: only `present` is accepted. */
export function ensurePresentOnly(type: string) {
  return z
    .literal('present', { error: `edgeform cannot delete a ${type}; ensure must be present` })
    .default('present')
    .describe(`Only present: edgeform cannot delete a ${type}.`);
}

/**
 * The prefix of edgeform's own tags (the ownership tags a create writes): a block may not declare
 * them, the tags diff never shows or removes them, and only edgeform writes them.
 */
export const OWNERSHIP_TAG_PREFIX = 'edgeform-';

/** The ownership tag naming the stack (its `name:`) whose block created the resource. */
export const STACK_TAG = 'edgeform-stack';

/** The ownership tag naming the block's address (`TYPE.NAME`) within that stack. */
export const ADDRESS_TAG = 'edgeform-address';

/**
 * The ownership tag holding the owner mark (with EDGEFORM_OWNER_KEY set): a keyed hash of the stack,
 * the address, the kind, the project and the region that only the stack's pipelines can make
 * (see owner-seal.ts). Prune destroys only what carries a valid one while the key is set.
 */
export const MARK_TAG = 'edgeform-mark';

/**
 * The key of a DNS zone's meta that holds its owner record (`{"stack", "address", "mark"}`): the
 * one stack with prune: true that prunes the zone's record sets. A block's `meta` may not declare it.
 */
export const ZONE_OWNER_META_KEY = 'edgeform';

/** Whether a tag key is one of edgeform's own (see OWNERSHIP_TAG_PREFIX). */
export function isOwnershipTag(key: string): boolean {
  return key.startsWith(OWNERSHIP_TAG_PREFIX);
}

/**
 * Desired user tags of a kind whose creates carry ownership tags: `edgeform-*` keys are refused
 * (a pattern rather than a refinement, so the editor schema, edgeform.schema.json, carries the
 * rule), and so is a key that only looks like one (another case, a Cyrillic "е", a fullwidth
 * letter: see tag-key-lookalike.ts), which a reader would take for an ownership tag.
 */
export const userDeclaredTags = z
  .record(
    tagKey
      .regex(new RegExp(`^(?!${OWNERSHIP_TAG_PREFIX})`), { error: `keys starting with "${OWNERSHIP_TAG_PREFIX}" are edgeform's ownership tags; a block cannot declare them` })
      .superRefine((key, ctx) => {
        const like = lookalikeOf(key, [STACK_TAG, ADDRESS_TAG], OWNERSHIP_TAG_PREFIX);
        if (like === undefined) return;
        ctx.addIssue({
          code: 'custom',
          input: key,
          message: `the key looks like edgeform's ownership tag "${like}" (it differs only by case or by look-alike characters); a block cannot declare it`,
        });
      }),
    tagValue.nullable(),
  )
  .describe('User tags, key → value. A null value removes the tag. Read-only tags and edgeform-* keys (ownership tags) cannot be set.');

/** A cloud network, subnet or SSH key name as the platform accepts it (CreateNetworkSerializer.name's pattern): 3–63 characters. */
export const cloudResourceName = z.string().regex(/^[a-zA-Z0-9][a-zA-Z 0-9._-]{1,61}[a-zA-Z0-9._]$/, {
  error: 'a name is 3 to 63 letters, digits, spaces, ".", "_" and "-", starting with a letter or digit and ending with a letter, digit, "." or "_"',
});

/** A value that is exactly one `${env:NAME}` reference (what a sensitive field holds, see sensitiveField). */
export const ENV_REFERENCE = /^\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}$/;

/**
 * A sensitive field (KindSpec.sensitive): in a block, and in every plan made of it, it holds the
 * `${env:NAME}` reference as written, never the value; the value is read from the environment
 * when the loader checks it and again when apply sends it.
 */
export const sensitiveField = z.string().regex(ENV_REFERENCE, { error: 'must be exactly one ${env:NAME} reference: a sensitive value comes only from the environment' });

/**
 * The Gcore Terraform provider's names of the fields every cloud resource of it has (a project and
 * a region by name; metadata for tags), as a kind's `terraform.fields` takes them.
 */
export const TERRAFORM_CLOUD_FIELDS = { project_name: 'project_id', region_name: 'region_id', metadata_map: 'tags' } as const;
