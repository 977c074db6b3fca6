import { expect } from 'vitest';
import type { TestEmulator } from './emulator.js';

/** Load balancer, listener, pool, L7 and secret paths of project 1, region 76. */
export const LB_PATHS = {
  balancers: '/cloud/v1/loadbalancers/1/76',
  balancersV2: '/cloud/v2/loadbalancers/1/76',
  listeners: '/cloud/v1/lblisteners/1/76',
  listenersV2: '/cloud/v2/lblisteners/1/76',
  pools: '/cloud/v1/lbpools/1/76',
  poolsV2: '/cloud/v2/lbpools/1/76',
  policies: '/cloud/v1/l7policies/1/76',
  secrets: '/cloud/v1/secrets/1/76',
  secretsV2: '/cloud/v2/secrets/1/76',
  flavors: '/cloud/v1/lbflavors/1/76',
} as const;

/** PEM-framed stand-ins for a certificate, its chain and its key (the emulator checks the framing, not the cryptography). */
export const PEM = {
  certificate: '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUWebLeafCertificate0000000000wCgYIKoZIzj0EAwIw\n-----END CERTIFICATE-----\n',
  chain: '-----BEGIN CERTIFICATE-----\nMIIBtTCCAVugAwIBAgIUIntermediateCertificate00000wCgYIKoZIzj0EAwIw\n-----END CERTIFICATE-----\n',
  privateKey: '-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgSecretKeyMaterial0\n-----END PRIVATE KEY-----\n',
} as const;

/**
 * Sends a write that answers `{"tasks": [id]}`, checks it, lets the emulator's clock run past
 * the task (`ms`), and resolves with the task's id and what it created.
 */
export async function runTask(emu: TestEmulator, method: string, path: string, body?: unknown, ms = 60_000): Promise<{ taskId: string; created: Record<string, string[]> }> {
  const res = await emu.call(method, path, body === undefined ? {} : { body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.tasks, JSON.stringify(res.body)).toHaveLength(1);
  const taskId = res.body.tasks[0] as string;
  emu.clock.advance(ms);
  const task = emu.state.tasks.get(taskId)!;
  expect(task.planned_error, `task ${task.task_type} failed`).toBeNull();
  return { taskId, created: task.created_resources ?? {} };
}

/** Creates a secret with the PEM stand-ins (its task finished); resolves with its id. */
export async function createSecret(emu: TestEmulator, name = 'web-cert'): Promise<string> {
  const { created } = await runTask(emu, 'POST', LB_PATHS.secretsV2, {
    name,
    payload: { certificate: PEM.certificate, certificate_chain: PEM.chain, private_key: PEM.privateKey },
  });
  return created.secrets![0]!;
}

/** Creates a balancer from `body` (its task finished); resolves with its id and the ids of what its create made. */
export async function createBalancer(emu: TestEmulator, body: Record<string, unknown>): Promise<{ id: string; created: Record<string, string[]> }> {
  const { created } = await runTask(emu, 'POST', LB_PATHS.balancers, body);
  return { id: created.loadbalancers![0]!, created };
}
