import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { EdgeformError } from '../errors.js';
import { WORLD_DEFAULTS, type WorldDefaults } from './core-state.js';
import { int, positiveInt } from './fixture-parts.js';
import { FAULT_SETTINGS, MAX_SEED, type FaultFixtureKey } from './options.js';
import { EMULATOR_SERVICES, type ServiceSections } from './services/index.js';

/** Absolute path of examples/emulator/fixtures.yaml, the demo world (docs/demo-world.md). */
export const demoFixturesPath: string = fileURLToPath(
  new URL(import.meta.url.includes('/dist/src/emulator/') ? '../../../examples/emulator/fixtures.yaml' : '../../examples/emulator/fixtures.yaml', import.meta.url),
);

/** Thrown when a fixtures file cannot be read, is not YAML, or does not match the fixture format. */
export class EmulatorFixturesError extends EdgeformError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('EDGEFORM_EMULATOR_FIXTURES', message, options);
  }
}

const pathRule = { method: z.string().optional(), path: z.string().startsWith('/') };

// The fault settings of NUMERIC_OPTIONS by their fixtures keys: milliseconds as whole numbers, shares 0..1.
const faultSettingsShape = Object.fromEntries(FAULT_SETTINGS.map(({ fixture, share }) => [fixture, (share ? z.number().min(0).max(1) : int.min(0)).optional()])) as Record<
  FaultFixtureKey,
  z.ZodOptional<z.ZodNumber>
>;

const faultsSchema = z.strictObject({
  ...faultSettingsShape,
  seed: int.min(0).max(MAX_SEED).optional(),
  fail_next: z.array(z.strictObject({ ...pathRule, status: int.min(100).max(599), count: positiveInt.optional(), retry_after: int.min(0).optional() })).default([]),
  drop_next: z.array(z.strictObject({ ...pathRule, when: z.enum(['before', 'after']) })).default([]),
});

const worldSchema = z
  .strictObject({
    project_id: int.default(WORLD_DEFAULTS.project_id),
    region_id: int.default(WORLD_DEFAULTS.region_id),
    region: z.string().default(WORLD_DEFAULTS.region),
    user_id: positiveInt.default(WORLD_DEFAULTS.user_id),
    client_id: positiveInt.default(WORLD_DEFAULTS.client_id),
  })
  .prefault({});

// The file: the world, every service's sections (services/index.ts), the faults.
const fixturesSchema = z.strictObject({
  defaults: worldSchema,
  ...(Object.assign({}, ...EMULATOR_SERVICES.map((service) => service.fixtures)) as ServiceSections),
  faults: faultsSchema.optional(),
});

/** The fixture format as written (YAML file or object): every section optional. See docs/emulator.md. */
export type EmulatorFixtures = z.input<typeof fixturesSchema>;

/** Fixtures after validation, with every default filled in. */
export type NormalizedFixtures = z.output<typeof fixturesSchema>;

/**
 * Loads and validates fixtures from a YAML file path or an object of the same shape. Errors
 * name the file, the path inside it and the problem, e.g.
 * `fixtures.yaml: floating_ips[0].status: Invalid option: expected one of "ACTIVE"|"DOWN"|"ERROR"`.
 */
export function loadFixtures(source: string | EmulatorFixtures | undefined): NormalizedFixtures {
  if (source === undefined) return validateFixtures({}, 'fixtures');
  if (typeof source !== 'string') return validateFixtures(source, 'fixtures');
  let text: string;
  try {
    text = readFileSync(source, 'utf8');
  } catch (error) {
    throw new EmulatorFixturesError(`cannot read fixtures file ${source}: ${(error as Error).message}`, { cause: error });
  }
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (error) {
    throw new EmulatorFixturesError(`${source}: not valid YAML: ${(error as Error).message}`, { cause: error });
  }
  return validateFixtures(data ?? {}, source);
}

function validateFixtures(data: unknown, label: string): NormalizedFixtures {
  const parsed = fixturesSchema.safeParse(data);
  if (!parsed.success) {
    const lines = parsed.error.issues.slice(0, 10).map((issue) => `${label}: ${formatPath(issue.path)}: ${issue.message}`);
    throw new EmulatorFixturesError(`invalid emulator fixtures:\n  ${lines.join('\n  ')}`);
  }
  const f = parsed.data;
  const duplicates: string[] = [];
  for (const service of EMULATOR_SERVICES) {
    // Each service's id function fits the items of its own section.
    const ids = Object.entries(service.fixtureIds ?? {}) as Array<[keyof NormalizedFixtures, (item: unknown, world: WorldDefaults) => string | number]>;
    for (const [section, idOf] of ids) {
      const duplicate = findDuplicate(
        section,
        (f[section] as unknown[]).map((item) => idOf(item, f.defaults)),
      );
      if (duplicate !== undefined) duplicates.push(duplicate);
    }
  }
  if (duplicates.length > 0) throw new EmulatorFixturesError(`invalid emulator fixtures:\n  ${duplicates.map((d) => `${label}: ${d}`).join('\n  ')}`);
  return f;
}

function findDuplicate(section: string, ids: Array<string | number>): string | undefined {
  const seen = new Set<string | number>();
  for (const [index, id] of ids.entries()) {
    if (seen.has(id)) return `${section}[${index}]: duplicate id ${JSON.stringify(id)}`;
    seen.add(id);
  }
  return undefined;
}

function formatPath(path: PropertyKey[]): string {
  if (path.length === 0) return '(top level)';
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');
}
