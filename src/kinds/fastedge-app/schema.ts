import { z } from 'zod';
import { defineKind } from '../kind-spec.js';
import { ensureDeletable, positiveId } from '../fields.js';

/** A FastEdge app name as the platform accepts it (the vendor schema's pattern and length). */
const appName = z
  .string()
  .min(1, { error: 'must not be empty' })
  .max(64, { error: 'an app name must be at most 64 characters' })
  .regex(/^[a-z0-9][a-z0-9-]*[a-z0-9]$/, { error: 'an app name is 2 or more lowercase letters, digits and dashes, starting and ending with a letter or digit (e.g. my-edge-app)' });

/** A string → string map (env, rsp_headers): the whole map is managed when declared. */
const stringMap = z.record(z.string().min(1, { error: 'a key must not be empty' }), z.string());

const shape = () =>
  z.strictObject({
    app_id: positiveId.optional().describe('The FastEdge app id (integer). Omit it to have edgeform find the app by name, or create it.'),
    name: appName.optional().describe('The app name, unique in the account: how a block without app_id finds its app (2..64 of a-z, 0-9 and "-").'),
    binary: positiveId.optional().describe('The id of the WebAssembly binary the app runs. Required to create an app.'),
    env: stringMap.optional().describe('Environment variables, name → value; the whole map is managed (variables not listed are removed).'),
    rsp_headers: stringMap.optional().describe('Headers added to every response, name → value; the whole map is managed.'),
    status: z
      .union([z.literal(0), z.literal(1), z.literal(2)], { error: 'must be 0 (draft), 1 (enabled) or 2 (disabled)' })
      .optional()
      .describe('0 draft, 1 enabled, 2 disabled. A new app without status starts as a draft (0).'),
    comment: z.string().max(1024, { error: 'a comment must be at most 1024 characters' }).optional().describe("A description of the app's purpose (at most 1024 characters)."),
    ensure: ensureDeletable,
  });

/**
 * fastedge_app: a FastEdge app, adopted by `app_id` or found by its `name` (unique in the
 * account), and created when no app has that name; `ensure: absent` deletes it.
 */
export const fastedgeAppKind = defineKind({
  type: 'fastedge_app',
  kind: 'resource',
  description:
    'A FastEdge app, by app_id or by name; edgeform creates it when no app has that name, sets its binary, env, headers, status and comment, and ensure: absent deletes it.',
  identity: ['app_id', 'name'],
  terraform: { resource: 'gcore_fastedge_app', fields: {} },
  create: { idField: 'app_id', key: ['name'] },
  readable: {
    id: { type: 'number', description: 'The app id (integer).', read: (s) => s.app_id },
    name: { type: 'string', description: 'The app name.', read: (s) => s.name },
    url: { type: 'string', description: 'The URL the platform serves the app at.', read: (s) => s.url },
    binary: { type: 'number', description: 'The id of the binary the app runs.', read: (s) => s.binary },
    status: { type: 'number', description: '0 draft, 1 enabled, 2 disabled.', read: (s) => s.status },
  },
  shape,
  schema: (shape) =>
    shape.superRefine((value, ctx) => {
      if (value.app_id === undefined && value.name === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['name'],
          message: `must be set when app_id is not: edgeform finds the app by name (and creates it when none has the name), or adopts the app app_id names`,
        });
      }
    }),
});
