import type { z } from 'zod';

/**
 * Everything edgeform knows about one resource or check kind's stack block. `shape` is the
 * strict object of attributes (no `type`, no `depends_on`); `schema` adds the cross-field
 * rules and is what the loader validates with. `identity` names the fields that pick the
 * one platform object a block manages: they are required in the block itself and may never
 * come from `defaults:` (a default id would point every block at the same object). The
 * attribute type the planner and the kind's provider see is the shape's output (see
 * ResourceAttributes in registry.ts), so the schema and the type cannot drift apart.
 */
export interface KindSpec<Shape extends z.ZodObject = z.ZodObject, Type extends string = string, Kind extends 'resource' | 'check' = 'resource' | 'check'> {
  readonly type: Type;
  /** A resource (planned and applied) or a check (a read-only assertion). */
  readonly kind: Kind;
  readonly description: string;
  readonly identity: readonly string[];
  /**
   * A resource kind's attribute that holds the platform id (`network_id`; a DNS zone's `name`),
   * stated here once: the planner, the lifecycle, the readers and the messages take it from here.
   * A check kind has none.
   */
  readonly idField: Kind extends 'resource' ? string : undefined;
  /**
   * Present when edgeform can create resources of this kind: a block may then omit its platform
   * id (`idField`, optional in the shape) and is found by `key`, a natural key (fields that
   * together pick one resource, e.g. ['name']) or `'owner'`, the ownership tags a create writes
   * (which name the stack, so such a block needs the stack's `name:`). Absent: the kind is
   * adopt-only and its id is required.
   */
  readonly create?: CreateSpec;
  /**
   * Its resources record the stack (and address) that owns them outside ownership tags: a DNS
   * zone names its pruning owner in its meta. Such a block takes `moved_from:` (with the stack's
   * `prune: true`), and the stack's `renamed_from:` moves it, as for a kind found by ownership tags.
   */
  readonly ownerRecord?: true;
  /**
   * Attributes that name a file next to the stack (`vtt_file: subtitles/ger.vtt`), by attribute:
   * the loader reads each such file (relative to the stack file that names it, never outside the
   * stack's directory), checks its text, and puts the text into another attribute, so providers
   * never read files and the stack's digest covers what the file says.
   */
  readonly files?: Readonly<Record<string, FileField>>;
  /**
   * For a kind a record set of a zone file becomes a block of (dns_rrset, from a `dns_zone`'s
   * `records_file:`): the record types its blocks hold and a record's content from the file's
   * data. The loader (src/config/zone-records.ts) reads the file and makes the blocks.
   */
  readonly zoneRecords?: ZoneRecordsSpec;
  /**
   * Rules across the stack's blocks of this kind (a CNAME beside another type at one name, in
   * two blocks): each problem names the block (its index in `blocks`) and the field it is at.
   * The loader runs it once the blocks are valid, zone file record sets included. Pure.
   */
  checkAcross?(blocks: ReadonlyArray<Readonly<Record<string, unknown>>>): Array<{ index: number; field: string; message: string }>;
  /**
   * Fields in which a block names itself by a word, not by a reference to its own address (which
   * is refused): by path (`*` for list items), the word. A security group's rule names the group
   * it is in as `remote_group_id: self`, so `${cloud_security_group.web.id}` inside `web` is told
   * to write that.
   */
  readonly selfNames?: Readonly<Record<string, string>>;
  /**
   * The Gcore Terraform provider's resource for this kind (G-Core/terraform-provider-gcore) and its
   * names for the kind's fields where they differ, so a user who writes the provider's name is told
   * edgeform's: `unknown field "keypair_name" ...; did you mean "ssh_key_name" (the Terraform
   * provider's "keypair_name")?`.
   */
  readonly terraform?: TerraformNames;
  /**
   * Warnings about a valid block (a CDN option the vendor marks deprecated): each at its path in
   * the block, with a stable code and what to write instead. The loader reports them at their
   * place; the block stays valid and is applied as written. Pure.
   */
  warnings?(attributes: Readonly<Record<string, unknown>>): BlockWarning[];
  /**
   * What a reference (`${TYPE.NAME.FIELD}`) to a block of this kind may read, by FIELD: `id` (the
   * platform id, whatever the kind's id attribute is called) and the attributes the kind documents
   * as readable, each read from the provider's observed state. Absent (checks): nothing may refer
   * to a block of this kind.
   */
  readonly readable?: Readonly<Record<string, ReadableField>>;
  /**
   * Fields the read needs (identity or natural key) that may still hold a reference to another
   * block (a rule's `resource_id`: rules are listed per resource). Such a reference is resolved
   * from what was read of its block before this block is read (readStack reads it after that
   * block); a block still to be created leaves KNOWN_AFTER_APPLY in its place, which the kind's
   * read takes as "does not exist yet". Every other identity field refuses references.
   */
  readonly resolvedBeforeRead?: readonly string[];
  /**
   * Write-only secrets (an S3 origin's keys): each must be written as exactly one `${env:NAME}`
   * reference (its key may look like a credential, which is otherwise refused). The loader checks
   * the variable's value with `value` (messages never show it) and keeps the reference, not the
   * value, in the block: plans, plan files and output only ever hold the reference, and apply
   * reads the variable when it sends the request. Their schema in `shape` is sensitiveField.
   */
  readonly sensitive?: readonly SensitiveField[];
  /**
   * Top-level fields whose name looks like a credential's (`secret_id`) but that hold the id of a
   * secret resource (a `cloud_secret`), not a secret: the stack reader's refusal of such a key is
   * dropped for them (see releaseSecretIds), and they are read as any other field.
   */
  readonly secretIds?: readonly string[];
  /** Names a field had before (old → current): an old name is an unknown field that suggests the current one. */
  readonly formerNames?: Readonly<Record<string, string>>;
  readonly shape: Shape;
  /** What the loader validates with: `shape` plus the cross-field rules, if any (same output). */
  readonly schema: z.ZodType;
}

/** A kind's counterpart in the Gcore Terraform provider (see KindSpec.terraform). */
export interface TerraformNames {
  /** The provider's resource type, `gcore_instancev2`. */
  readonly resource: string;
  /**
   * The provider's name → edgeform's field, by the path where edgeform meets the name in a block:
   * `keypair_name` at the top, `interfaces.*.existing_fip_id` in the items of a list (`*`),
   * `options.gzip_on` in a mapping. Only names that differ, and that edgeform has a field for.
   */
  readonly fields: Readonly<Record<string, string>>;
}

/** A warning about a valid block (see KindSpec.warnings). */
export interface BlockWarning {
  /** Where in the block: field names and list indexes (`['options', 'disable_cache']`). */
  readonly path: ReadonlyArray<string | number>;
  /** A stable diagnostic code (`deprecated`). */
  readonly code: string;
  readonly message: string;
  readonly detail?: string;
}

/** A sensitive field of a kind (see KindSpec.sensitive). */
export interface SensitiveField {
  /** Where in a block: field names, `*` for every item of a list (`['origins', '*', 's3', 'secret_access_key']`). */
  readonly path: readonly string[];
  /** What the value from the environment must be; its messages are shown, so they never quote the value. */
  readonly value: z.ZodType<string>;
}

/** One attribute a reference may read (see KindSpec.readable). */
export interface ReadableField {
  /** The value's type: a whole-value reference keeps it (a number stays a number). */
  readonly type: 'string' | 'number' | 'boolean';
  /** What it is, for the docs and did-you-mean messages. */
  readonly description: string;
  /** The value in an observed state (the provider's projection); undefined or null when the platform has none yet. Pure. */
  read(state: Readonly<Record<string, unknown>>): unknown;
}

/** Where a text read for a file attribute is not acceptable: a 1-based line and column of the file, and why. */
export interface TextProblem {
  line: number;
  column: number;
  message: string;
}

/** What a kind tells the zone file loader (see KindSpec.zoneRecords). */
export interface ZoneRecordsSpec {
  /** The record types a block holds (upper case). */
  readonly types: readonly string[];
  /** The attribute holding the records, in the file's order (a problem at its index is at that record's line). */
  readonly recordsField: string;
  /** The record set a block of the kind declares: its zone and owner name (canonical) and its type. Pure. */
  declares(attributes: Readonly<Record<string, unknown>>): { zone: string; name: string; type: string };
  /** A block's attributes (before the kind's schema checks them) for a zone file's record set: its name (absolute) and type, TTL and each record's data tokens, names relative to `origin`. Pure. */
  attributes(zone: string, set: { name: string; type: string; ttl: number; records: ReadonlyArray<{ rdata: readonly string[]; origin: string }> }): Record<string, unknown>;
  /** A record's data tokens from its content (names absolute, with the trailing dot). Pure. */
  rdata(type: string, content: readonly unknown[]): string[];
}

/** A file attribute of a kind (see KindSpec.files). */
export interface FileField {
  /** The attribute the file's text goes into (the one the provider sends). */
  readonly into: string;
  /** What the file holds, for messages: "a WebVTT file". */
  readonly what: string;
  /** The most bytes the file may have (the platform's own limit). */
  readonly maxBytes: number;
  /** The first problem of the text, or null when it is acceptable (a sensitive file's message never quotes it). Pure. */
  check(text: string): TextProblem | null;
  /**
   * The file holds a secret (a private key) and `into` is a sensitive field (KindSpec.sensitive):
   * its text is handled as the value of a sensitive `${env:NAME}` reference, never as an
   * attribute. `into` holds a reference to a variable named after the text's sha256 (so plans
   * and plan files hold the fingerprint, never the text; a changed file makes a saved plan
   * stale), and the loader hands the text to the run as that variable's value (Stack.sensitiveFiles):
   * sent only in the request, redacted from all output, and no code frame ever shows the file.
   */
  readonly sensitive?: true;
  /**
   * The file is a BIND zone file whose record sets become blocks of the kind `records` (one that
   * declares `zoneRecords`), its origin the block's attribute `origin` (a DNS zone's `name`).
   */
  readonly zoneFile?: { readonly records: string; readonly origin: string };
}

/** Whether a block of this kind takes `moved_from:` and moves with `renamed_from:`: its resources carry ownership tags, or an owner record (KindSpec.ownerRecord). */
export function takesMoves(kind: KindSpec): boolean {
  return kind.kind === 'resource' && (kind.create?.key === 'owner' || kind.ownerRecord === true);
}

/** How a creatable kind's blocks without a platform id find their resource (see KindSpec.create). */
export interface CreateSpec {
  /** A natural key's fields, or 'owner': the ownership tags (edgeform-stack, edgeform-address). */
  readonly key: readonly string[] | 'owner';
}

/**
 * Declares a kind. A `schema` with cross-field rules must produce exactly the shape's output
 * (the attribute type is the shape's); without one, the strict object shape is the validator.
 * Both are given as functions, run when the kind's `shape` or `schema` is first read, not when
 * the registry loads: a command builds the zod schemas of the kinds its stack uses, not those
 * of every kind (issue 33: each kind added made every run slower to start).
 */
export function defineKind<Type extends string, Shape extends z.ZodObject, Kind extends 'resource' | 'check'>(
  spec: Omit<KindSpec<Shape, Type, Kind>, 'shape' | 'schema' | 'idField'> &
    (Kind extends 'resource' ? { idField: string } : { idField?: undefined }) & { shape: () => Shape; schema?: (shape: Shape) => z.ZodType<z.output<Shape>> },
): KindSpec<Shape, Type, Kind> {
  const { shape: buildShape, schema: buildSchema, ...rest } = spec;
  let shape: Shape | undefined;
  let schema: z.ZodType | undefined;
  // Not yet a KindSpec: `shape` and `schema` are defined on it just below, as getters.
  const kind = rest as unknown as KindSpec<Shape, Type, Kind>;
  Object.defineProperties(kind, {
    shape: { enumerable: true, get: () => (shape ??= buildShape()) },
    schema: { enumerable: true, get: () => (schema ??= buildSchema ? buildSchema(kind.shape) : kind.shape) },
  });
  return kind;
}
