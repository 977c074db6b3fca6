import { must } from '../errors.js';
import { z } from 'zod';
import { defaultsSchema } from './defaults.js';
import { PROVIDER_SCHEMA, PRUNE_SCHEMA, RENAMED_FROM_SCHEMA, STACK_NAME_SCHEMA, STACK_VERSION } from './load-stack.js';
import { CHECK_KINDS, RESOURCE_KINDS, type KindSpec } from '../kinds/registry.js';
import { takesMoves } from '../kinds/kind-spec.js';
import { ADDRESS_PATTERN, MOVED_FROM_PATTERN, NAME_PATTERN } from './validate-block.js';
import { WHOLE_REFERENCE } from './interpolate.js';
import { WHOLE_RESOURCE_REFERENCE } from '../model/references.js';

type JsonSchema = Record<string, unknown>;

const ENV_REFERENCE_PATTERN = WHOLE_REFERENCE.source;

/**
 * A block as written in a file: `type` first (editors offer its values and then the fields
 * of that kind), the kind's fields, `depends_on`. Only identity fields are required here;
 * any other field may come from `defaults:`, which a per-file schema cannot see.
 */
function fileBlockSchema(kind: KindSpec) {
  const fields = Object.entries(kind.shape.shape as Record<string, z.ZodType>).map(([f, s]) => [f, kind.identity.includes(f) ? s : s.optional()]);
  return z.strictObject({
    type: z.literal(kind.type).describe(kind.description),
    ...(Object.fromEntries(fields) as Record<string, z.ZodType>),
    depends_on: z.array(z.string().regex(ADDRESS_PATTERN)).optional().describe('Addresses (TYPE.NAME) of blocks this one runs after.'),
    ...(takesMoves(kind)
      ? {
          moved_from: z
            .string()
            .regex(MOVED_FROM_PATTERN)
            .optional()
            .describe(
              kind.ownerRecord
                ? `The stack and address the ${kind.type}'s owner record named before (a stack with prune: true only): OLDSTACK/${kind.type}.NAME, or ${kind.type}.NAME (the stack's renamed_from, else its name). Plan shows ~ update (moved from ...): the owner record is rewritten, and this stack prunes from then on. Harmless once applied.`
                : `The ownership tags the resource carried before a rename: OLDSTACK/${kind.type}.NAME, or ${kind.type}.NAME (the stack's renamed_from, else its name). Plan shows ~ update (moved from ...): the tags are rewritten, nothing is created or destroyed. Harmless once applied.`,
            ),
        }
      : {}),
  });
}

/** The whole stack file as one zod schema, used only to generate the editor JSON Schema. */
function stackFileSchema() {
  const blocks = (kinds: Record<string, KindSpec>) => {
    const [first, ...rest] = Object.values(kinds).map(fileBlockSchema);
    return z.record(z.string().regex(NAME_PATTERN), z.discriminatedUnion('type', [must(first, 'first'), ...rest]));
  };
  return z
    .strictObject({
      version: z.literal(STACK_VERSION).optional().describe('Stack file version, always 1. Required once per stack (in a directory stack, in at least one file).'),
      name: STACK_NAME_SCHEMA.optional(),
      renamed_from: RENAMED_FROM_SCHEMA.optional(),
      provider: PROVIDER_SCHEMA.optional().describe('Where the platform is. The API key is never here: set EDGEFORM_API_KEY.'),
      prune: PRUNE_SCHEMA.optional(),
      defaults: defaultsSchema().optional().describe('Fields filled into every block whose kind has them and which omits them.'),
      resources: blocks(RESOURCE_KINDS).optional().describe('Resources by NAME; the address of each is TYPE.NAME.'),
      checks: blocks(CHECK_KINDS).optional().describe('Read-only assertions by NAME, evaluated by plan and drift.'),
    })
    .meta({ title: 'edgeform stack file', description: 'A stack: the desired state edgeform reconciles. See docs/stack-file.md.' });
}

/**
 * The JSON Schema (draft 2020-12) of a stack file, generated from the zod schemas that
 * `edgeform validate` uses, for editors (yaml-language-server). Blocks are a union
 * discriminated by `type`. Wherever a value may be interpolated, `${env:NAME}` is also
 * accepted, since the editor cannot know the variable's value. Deterministic output.
 */
export function buildStackJsonSchema(): JsonSchema {
  const schema = z.toJSONSchema(stackFileSchema(), { target: 'draft-2020-12', io: 'input' }) as JsonSchema;
  const properties = schema.properties as Record<string, JsonSchema>;
  properties.provider = allowEnvInFields(must(properties.provider, 'properties.provider'), []);
  properties.defaults = allowEnvInFields(must(properties.defaults, 'properties.defaults'), []);
  for (const section of ['resources', 'checks'] as const) {
    const union = (must(properties[section], 'properties[section]').additionalProperties as JsonSchema).oneOf as JsonSchema[];
    // A resource's fields may also hold a whole ${TYPE.NAME.FIELD} reference (validate checks which).
    const ref = section === 'resources' ? '#/$defs/reference' : '#/$defs/env_reference';
    union.forEach((block, i) => (union[i] = allowEnvInFields(block, ['type', 'depends_on', 'moved_from'], ref)));
  }
  return {
    ...schema,
    $defs: {
      env_reference: { type: 'string', pattern: ENV_REFERENCE_PATTERN, description: 'An ${env:NAME} reference, resolved by edgeform.' },
      reference: {
        type: 'string',
        pattern: `${ENV_REFERENCE_PATTERN}|${WHOLE_RESOURCE_REFERENCE.source}`,
        description:
          'An ${env:NAME} reference, a ${TYPE.NAME.FIELD} reference to another resource of the stack, or a ${stack:NAME/TYPE.BLOCK.FIELD} reference to a resource of another stack, resolved by edgeform.',
      },
    },
  };
}

/** An object schema whose field values (except `keep`) also accept a whole reference string (`ref`, an ${env:NAME} one by default). */
function allowEnvInFields(object: JsonSchema, keep: readonly string[], ref = '#/$defs/env_reference'): JsonSchema {
  const properties = object.properties as Record<string, JsonSchema> | undefined;
  if (!properties) return object;
  const out: Record<string, JsonSchema> = {};
  for (const [field, value] of Object.entries(properties)) out[field] = keep.includes(field) ? value : allowEnv(value, ref);
  return { ...object, properties: out };
}

function allowEnv(schema: JsonSchema, ref: string): JsonSchema {
  if (schema.type === 'object') {
    const withFields = allowEnvInFields(schema, [], ref);
    const extra = schema.additionalProperties;
    return typeof extra === 'object' && extra !== null ? { ...withFields, additionalProperties: allowEnv(extra as JsonSchema, ref) } : withFields;
  }
  if (schema.type === 'array' && typeof schema.items === 'object') return { ...schema, items: allowEnv(schema.items as JsonSchema, ref) };
  if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: (schema.anyOf as JsonSchema[]).map((s) => allowEnv(s, ref)) };
  if (schema.type === 'null' || (schema.type === 'string' && Object.keys(schema).every((k) => ['type', 'description', 'default'].includes(k)))) return schema;
  const { description, default: fallback, ...rule } = schema;
  return {
    ...(description !== undefined ? { description } : {}),
    ...(fallback !== undefined ? { default: fallback } : {}),
    anyOf: [rule, { $ref: ref }],
  };
}
