import type { z } from 'zod';
import type { CoreState, WorldDefaults } from './core-state.js';
import type { ApiProduct } from './reply.js';
import type { ServiceRoute } from './router.js';
import type { TaskTarget } from './tasks.js';

/** The validated sections of a service (every default filled in). */
export type SectionsOf<Sections extends z.ZodRawShape> = { [K in keyof Sections]: z.output<Sections[K]> };

type ItemOf<Section> = Section extends z.ZodType<infer Output> ? (Output extends ReadonlyArray<infer Item> ? Item : never) : never;

/**
 * One platform service of the emulator (floating IPs, instances, FastEdge, ...): everything
 * about it in one module. `services/index.ts` lists the services once; the server, the store,
 * the fixtures loader and the control routes iterate that list and never name a service.
 *
 * - `Slice`: its part of the in-memory state (maps of records), added to `emu.state`;
 * - `Sections`: its top-level sections of the fixtures file (zod schemas with their defaults);
 * - `Needs`: what its routes read of the state besides the core: its slice, and the slices of
 *   services it reads (the floating IP list shows the instance);
 * - `MutationKind`, `TaskKind`: the names it records changes under and locks resources under.
 */
export interface EmulatorService<Slice extends object, Sections extends z.ZodRawShape, Needs extends object, MutationKind extends string, TaskKind extends string> {
  /** Its API family: the error shapes its routes answer in. */
  readonly product: ApiProduct;
  /** Its sections of the fixtures file; the order is the order their problems are reported in. */
  readonly fixtures: Sections;
  /** For sections whose items have an identity: the id of an item (two items with one id are a fixtures error). */
  readonly fixtureIds?: { readonly [K in keyof Sections]?: (item: ItemOf<Sections[K]>, world: WorldDefaults) => string | number };
  /** Its slice of the state, empty. */
  createState(): Slice;
  /** Refills its slice in place from its validated sections (the emulator's reset calls it again). */
  load(slice: Slice, sections: SectionsOf<Sections>, world: WorldDefaults): void;
  /** Its part of GET /__emulator/state: plain JSON, datetimes as epoch ms. */
  dump(state: CoreState & Slice, now: number): Record<string, unknown>;
  /** Its routes. */
  readonly routes: readonly ServiceRoute<Needs>[];
  /** The kinds of resource it records in the mutation log. */
  readonly mutationKinds: readonly MutationKind[];
  /** The kinds of its resources that cloud tasks lock, and what a task does to them. */
  readonly taskTargets: readonly TaskTarget<TaskKind>[];
}

/** Declares a service, inferring its types from the object (the kinds as literal types). */
export function defineService<
  Slice extends object,
  Sections extends z.ZodRawShape,
  Needs extends object,
  const MutationKind extends string = never,
  const TaskKind extends string = never,
>(service: EmulatorService<Slice, Sections, Needs, MutationKind, TaskKind>): EmulatorService<Slice, Sections, Needs, MutationKind, TaskKind> {
  return service;
}
