import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { startEmulator, demoFixturesPath, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';

/** A parsed answer of the emulator. */
export interface EmulatorResponse {
  status: number;
  headers: Headers;
  /** Raw body text ('' when none). */
  text: string;
  /** Parsed JSON body, or undefined when the body is empty or not JSON. */
  body: any;
}

/** An emulator started for a test, with a small fetch helper that sends the right API key. */
export interface TestEmulator extends Emulator {
  call(method: string, path: string, options?: { body?: unknown; rawBody?: string; headers?: Record<string, string>; auth?: string | null }): Promise<EmulatorResponse>;
}

/** Well-known ids of the demo world (docs/demo-world.md). */
export const DEMO = {
  fip: '726ecfcc-7fd0-4e30-a86e-7892524aa483',
  fipDown: '5f0c3a1e-2b7d-4c9a-8e61-0d2b3c4f5a6b',
  instance: 'a7e7e8d6-0b4c-4c2e-9d1e-2f0f0c7b9a11',
  cluster: 'prod-eu',
} as const;

/** Starts the emulator on 127.0.0.1:0 with the demo world and a manual clock unless told otherwise. */
export async function startTestEmulator(options: EmulatorOptions = {}): Promise<TestEmulator> {
  const emulator = await startEmulator({ port: 0, fixtures: demoFixturesPath, manualClock: true, ...options });
  const call: TestEmulator['call'] = async (method, path, o = {}) => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.auth !== null) headers.Authorization = o.auth ?? `APIKey ${emulator.apiKey}`;
    let body: string | undefined = o.rawBody;
    if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['Content-Type'] = 'application/json';
    }
    const res = await fetch(`${emulator.url}${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, text, body: parsed };
  };
  return Object.assign(emulator, { call });
}

/**
 * Registers the usual lifecycle of a test file (or describe block) against one emulator: started
 * before its first test (`options` as startTestEmulator's), reset before each test unless
 * `resetEach: false` (tests that build on the state the previous one left), closed after the
 * last. `use` receives it once started.
 */
export function useTestEmulator(use: (emu: TestEmulator) => void, options: EmulatorOptions & { resetEach?: boolean } = {}): void {
  const { resetEach = true, ...emulatorOptions } = options;
  let emu: TestEmulator | undefined;
  beforeAll(async () => {
    emu = await startTestEmulator(emulatorOptions);
    use(emu);
  });
  if (resetEach) beforeEach(() => emu?.reset());
  afterAll(() => emu?.close());
}

/**
 * Registers, after each test, the closing of what the test left open: `open` names it (the
 * file's emulator, API client, harness: whichever the test started), closed in that order; what
 * an earlier test already closed is not closed again.
 */
export function closeAfterEach(open: () => ReadonlyArray<{ close(): unknown } | undefined>): void {
  const closed = new WeakSet<object>();
  afterEach(async () => {
    for (const o of open()) {
      if (o === undefined || closed.has(o)) continue;
      closed.add(o);
      await o.close();
    }
  });
}

/** Closers run after each test, last first, and emptied: what a test starts and must end even when it fails. */
export function cleanupAfterEach(): Array<() => Promise<unknown>> {
  const cleanup: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const close of cleanup.splice(0).reverse()) await close();
  });
  return cleanup;
}

/** The tags of a floating IP as the emulator holds them, key → value. */
export function floatingIpTags(emu: TestEmulator, id: string): Record<string, string> {
  return Object.fromEntries(emu.state.floatingIps.get(id)!.tags.map((t) => [t.key, t.value]));
}

/** Creates a floating IP in project 1, region 76 carrying these tags (as an earlier run, or someone with a tag editor, would have); its id. */
export async function seedFloatingIp(emu: TestEmulator, tags: Record<string, string>): Promise<string> {
  const res = await emu.call('POST', '/cloud/v1/floatingips/1/76', { body: { tags } });
  return [...emu.state.floatingIps.values()].find((f) => f.creator_task_id === res.body.tasks[0])!.id;
}
