import { z } from 'zod';
import { defineKind, type TextProblem } from '../kind-spec.js';
import { ensureDeletable, nonEmptyString, positiveId, projectId, regionId, tagsPolicy, userDeclaredTags, uuid, TERRAFORM_CLOUD_FIELDS } from '../fields.js';

/**
 * The most bytes of user_data: the platform takes at most 65,535 characters of base64, which
 * 49,149 bytes of text make (65,532).
 */
export const MAX_USER_DATA_BYTES = 49_149;

/** An instance's name as the platform's create accepts it. */
export const INSTANCE_NAME = /^[a-zA-Z0-9][a-zA-Z 0-9._-]{1,61}[a-zA-Z0-9._]$/;

const instanceName = z.string().regex(INSTANCE_NAME, {
  error: 'must be 3–63 characters: letters, digits, spaces, ".", "_" and "-", starting with a letter or digit and not ending with a space or "-"',
});

/** user_data is sent base64-encoded, so any text goes; the only limit is its size. */
function checkUserData(text: string): TextProblem | null {
  return Buffer.byteLength(text, 'utf8') > MAX_USER_DATA_BYTES ? { line: 1, column: 1, message: `user data is at most ${MAX_USER_DATA_BYTES} bytes` } : null;
}

const anInterface = z
  .strictObject({
    type: z
      .enum(['external', 'subnet', 'any_subnet'])
      .describe('external: the public network; subnet: an address from subnet_id of network_id; any_subnet: from any subnet of network_id.'),
    network_id: uuid.optional().describe('The network (subnet and any_subnet), usually ${cloud_network.NAME.id}.'),
    subnet_id: uuid.optional().describe('The subnet (subnet only), usually ${cloud_subnet.NAME.id}.'),
    floating_ip_id: uuid.optional().describe('A floating IP to associate with this interface (subnet and any_subnet), usually ${cloud_floating_ip.NAME.id}.'),
  })
  .superRefine((x, ctx) => {
    if (x.type === 'external') {
      for (const field of ['network_id', 'subnet_id', 'floating_ip_id'] as const)
        if (x[field] !== undefined)
          ctx.addIssue({ code: 'custom', path: [field], message: 'an external interface is on the public network: it takes no network, subnet or floating IP' });
      return;
    }
    if (x.network_id === undefined) ctx.addIssue({ code: 'custom', path: ['network_id'], message: `a ${x.type} interface needs network_id` });
    if (x.type === 'subnet' && x.subnet_id === undefined) ctx.addIssue({ code: 'custom', path: ['subnet_id'], message: 'a subnet interface needs subnet_id' });
    if (x.type === 'any_subnet' && x.subnet_id !== undefined)
      ctx.addIssue({ code: 'custom', path: ['subnet_id'], message: 'an any_subnet interface picks its subnet itself; use type: subnet to name one' });
  });

/** What an instance's interface is, as a block declares it. */
export type InstanceInterface = z.output<typeof anInterface>;

/**
 * The fields only a create sends that the instance does not show: the create writes a digest of
 * each into its `edgeform-create` tag, so a later difference is seen, and replaces it.
 */
export const CREATE_DIGESTED_FIELDS = ['image_id', 'boot_volume_size', 'boot_volume_type', 'interfaces', 'security_group_ids', 'user_data'] as const;

const shape = () =>
  z.strictObject({
    project_id: projectId,
    region_id: regionId,
    instance_id: uuid
      .optional()
      .describe('The instance id (UUID) to adopt. Omit it to have edgeform create the instance and find it by its ownership tags (the stack needs name:).'),
    flavor_id: nonEmptyString.describe("The flavor, e.g. g2-standard-4-8: one of the region's flavors; a different live flavor is resized (a task)."),
    name: instanceName.optional().describe('The instance name; a different live name is changed in place. Omitted: not managed (a create lets the platform name it).'),
    image_id: uuid.optional().describe('Boot from a new volume made from this image (UUID). Exactly one of image_id and boot_volume_id when creating.'),
    boot_volume_size: positiveId.optional().describe("The size in GiB of the boot volume made from image_id (default: the platform's)."),
    boot_volume_type: z
      .enum(['cold', 'ssd_hiiops', 'ssd_local', 'ssd_lowlatency', 'standard', 'ultra'])
      .optional()
      .describe('The volume type of the boot volume made from image_id (default standard).'),
    boot_volume_id: uuid.optional().describe('Boot from this existing volume, usually ${cloud_volume.NAME.id}. Exactly one of image_id and boot_volume_id when creating.'),
    volume_ids: z.array(uuid).optional().describe('Existing volumes attached besides the boot volume, usually ${cloud_volume.NAME.id}.'),
    interfaces: z.array(anInterface).min(1, { error: 'must list at least one interface' }).optional().describe('The network interfaces, in order; required when creating.'),
    security_group_ids: z.array(uuid).optional().describe('Security groups applied to every interface, usually ${cloud_security_group.NAME.id}.'),
    ssh_key_name: nonEmptyString.optional().describe('The SSH key pair to install, usually ${cloud_ssh_key.NAME.name}.'),
    user_data: z
      .string()
      .max(MAX_USER_DATA_BYTES)
      .optional()
      .describe('A cloud-init script (text; edgeform sends it base64-encoded). At most one of user_data and user_data_file.'),
    user_data_file: nonEmptyString
      .optional()
      .describe('A file next to the stack (relative to the stack file, inside its directory) holding the cloud-init script, read at validate time into user_data.'),
    tags: userDeclaredTags.optional(),
    // Optional rather than defaulted: blocks written before instances had tags stay as they are.
    tags_policy: tagsPolicy.unwrap().optional().describe('authoritative (default): live user tags not listed are removed. merge: only listed keys are managed.'),
    ensure: ensureDeletable,
  });

/**
 * cloud_instance: a cloud instance, adopted by id or, without one, created (with its boot
 * volume, interfaces, security groups, SSH key, user data and tags) and found again by the
 * ownership tags its create wrote. edgeform resizes it, renames it, manages its tags, replaces
 * it when a field only a create sets differs, and deletes it with `ensure: absent`.
 */
export const cloudInstanceKind = defineKind({
  type: 'cloud_instance',
  kind: 'resource',
  description:
    'A cloud instance: adopted by id, or created with its boot volume, interfaces, security groups, SSH key and user data and found again by its ownership tags; edgeform resizes, renames, retags, replaces and deletes it.',
  identity: ['instance_id'],
  terraform: {
    resource: 'gcore_instancev2',
    fields: { ...TERRAFORM_CLOUD_FIELDS, keypair_name: 'ssh_key_name', interface: 'interfaces', 'interfaces.*.existing_fip_id': 'floating_ip_id', volume: 'volume_ids' },
  },
  create: { idField: 'instance_id', key: 'owner' },
  readable: {
    id: { type: 'string', description: 'The instance id (UUID).', read: (s) => s.instance_id },
    name: { type: 'string', description: 'The instance name.', read: (s) => s.name },
    flavor_id: { type: 'string', description: 'The flavor the instance runs on.', read: (s) => s.flavor_id },
    status: { type: 'string', description: 'The instance status (e.g. ACTIVE).', read: (s) => s.status },
    fixed_ip_address: { type: 'string', description: 'The first fixed IP address of its first interface.', read: (s) => s.fixed_ip_address },
    floating_ip_address: { type: 'string', description: 'The first floating IP address associated with it.', read: (s) => s.floating_ip_address },
  },
  files: { user_data_file: { into: 'user_data', what: 'a cloud-init script', maxBytes: MAX_USER_DATA_BYTES, check: checkUserData } },
  shape,
  schema: (shape) =>
    shape.superRefine((block, ctx) => {
      if (block.user_data !== undefined && block.user_data_file !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['user_data_file'],
          message: 'must not be set together with user_data: set either the script (user_data) or the file it is in (user_data_file)',
        });
      }
      if (block.image_id !== undefined && block.boot_volume_id !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['boot_volume_id'],
          message: 'must not be set together with image_id: boot either from a new volume made from an image (image_id) or from an existing volume (boot_volume_id)',
        });
      }
      if (block.image_id === undefined) {
        for (const field of ['boot_volume_size', 'boot_volume_type'] as const)
          if (block[field] !== undefined)
            ctx.addIssue({ code: 'custom', path: [field], message: `describes the boot volume made from image_id: set image_id, or remove ${field}` });
      }
      if (block.instance_id !== undefined || block.ensure === 'absent') return;
      if (block.image_id === undefined && block.boot_volume_id === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['image_id'],
          message: 'must be set, or boot_volume_id: an instance edgeform creates boots from a new volume made from an image or from an existing volume',
        });
      }
      if (block.interfaces === undefined)
        ctx.addIssue({ code: 'custom', path: ['interfaces'], message: 'must be set: an instance edgeform creates needs at least one interface (e.g. [{ type: external }])' });
    }),
});
