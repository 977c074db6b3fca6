import { describe, expect, it } from 'vitest';
import { advisoryLockKey, describeLockUrl, toApplicationName } from '../../../src/cli/postgres-lock.js';
import { namedStackLockPath, stackLockKey } from '../../../src/cli/stack-lock.js';

describe('the lock across machines: its key, its URL as shown, its session name', () => {
  it('keys the advisory lock as the named file lock is: the same 64 bits of the same hash of name and platform', () => {
    const key = stackLockKey('shop', 'https://api.gcore.com');
    const fileLock = namedStackLockPath('shop', 'https://api.gcore.com', { EDGEFORM_LOCK_DIR: '/locks' });
    const hex = /shop-([0-9a-f]{16})\.lock$/.exec(fileLock)![1]!;
    expect(BigInt.asUintN(64, advisoryLockKey(key)).toString(16).padStart(16, '0')).toBe(hex);
    // A signed bigint, as PostgreSQL takes it; another name or platform, another key.
    expect(advisoryLockKey('ffffffffffffffff')).toBe(-1n);
    expect(advisoryLockKey(stackLockKey('shop', 'https://other.example'))).not.toBe(advisoryLockKey(key));
    expect(advisoryLockKey(stackLockKey('shop2', 'https://api.gcore.com'))).not.toBe(advisoryLockKey(key));
  });

  it('shows the lock URL without its password or query', () => {
    expect(describeLockUrl('postgres://edgeform:s3cr%24t@db.internal:5432/locks?sslmode=require&password=x')).toBe('postgres://edgeform:***@db.internal:5432/locks');
    expect(describeLockUrl('postgres://db.internal/locks')).toBe('postgres://db.internal/locks');
    expect(describeLockUrl('s3cr$t')).toBe('EDGEFORM_LOCK_URL (not a URL)');
  });

  it('names the session in printable ASCII, within the 63 bytes PostgreSQL keeps', () => {
    const name = toApplicationName('edgeform apply prod-eu on ci-runner-7 https://github.com/acme/stacks/actions/runs/123456789');
    expect(name).toHaveLength(63);
    expect(name.startsWith('edgeform apply prod-eu on ci-runner-7 https://github.com/acme/')).toBe(true);
    expect(toApplicationName('edgeform apply x on hôte\n')).toBe('edgeform apply x on h?te?');
  });
});
