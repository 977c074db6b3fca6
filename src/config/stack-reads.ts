import { dirname, join } from 'node:path';
import { ALL_KINDS, KIND_SERVICE, type Service } from '../kinds/registry.js';
import type { Block, Stack } from './types.js';

/**
 * A place on the platform where blocks are read: the platform service (the one the kind
 * declares, see KIND_SERVICE) and, where the blocks name them, its coordinates (a project and
 * region, a DNS zone, a reseller, a video).
 */
export interface Place {
  service: Service;
  project_id?: number;
  region_id?: number;
  zone?: string;
  reseller_id?: number;
  video_id?: number;
}

/** The attributes that say where a block is read, as the place's coordinates (numbers, or the zone's name). */
const PLACE_FIELDS = ['project_id', 'region_id', 'zone', 'reseller_id', 'video_id'] as const;

/**
 * The places a stack's blocks (resources and checks, `defaults:` applied) are read in, each
 * once, sorted: the service is the one the kind declares (KIND_SERVICE: `cloud`, `dns`, `cdn`,
 * `fastedge`, `streaming`, `iam`), with the coordinates the block names literally (a value
 * that is a reference to another block is not known offline and is left out). Pure.
 */
export function stackPlaces(stack: Pick<Stack, 'resources' | 'checks'>): Place[] {
  const places = new Map<string, Place>();
  for (const block of [...stack.resources, ...stack.checks] as Block[]) {
    const attributes = block.attributes as Record<string, unknown>;
    const place: Record<string, string | number> = { service: KIND_SERVICE[block.type] };
    for (const field of PLACE_FIELDS) {
      const value = attributes[field];
      if (typeof value === 'number' || (typeof value === 'string' && !value.includes('${'))) place[field] = value;
    }
    // A Place is this record of the place fields a block names (only those it names literally).
    places.set(JSON.stringify(place), place as unknown as Place);
  }
  return [...places.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, place]) => place);
}

/**
 * The files a stack reads: its own (`sources`) and those its blocks name in their kinds' file
 * attributes (a subtitle's `vtt_file`, a zone's `records_file`, an SSH key's `public_key_file`,
 * an instance's `user_data_file`), each as a path like the stack's (relative to where the stack
 * file naming it is), each once, sorted. Pure.
 */
export function stackFiles(stack: Pick<Stack, 'sources' | 'resources' | 'checks'>): string[] {
  const files = new Set<string>(stack.sources);
  for (const block of [...stack.resources, ...stack.checks] as Block[]) {
    const fileFields = ALL_KINDS[block.type].files;
    if (!fileFields) continue;
    const attributes = block.attributes as Record<string, unknown>;
    for (const field of Object.keys(fileFields)) {
      const path = attributes[field];
      const at = block.fieldSources[field]?.range.filename;
      if (typeof path === 'string' && at !== undefined) files.add(join(dirname(at), path));
    }
  }
  return [...files].sort();
}
