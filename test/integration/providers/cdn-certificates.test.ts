import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../../src/api/client.js';
import { CertificateIssueError } from '../../../src/errors.js';
import { createProviderContext } from '../../../src/kinds/context.js';
import { issueCertificate } from '../../../src/kinds/cdn-resource/certificates.js';
import { startTestEmulator, type TestEmulator, closeAfterEach } from '../../helpers/emulator.js';

const FIXTURES = {
  cdn_origin_groups: [{ id: 10, name: 'web', sources: [{ source: 'origin.example.com' }] }],
  cdn_resources: [
    { id: 220, cname: 'cdn.example.com', originGroup: 10 },
    { id: 221, cname: 'late.example.invalid', originGroup: 10 },
  ],
};

describe("issuing a CDN resource's Let's Encrypt certificate", () => {
  let emu: TestEmulator | undefined;
  closeAfterEach(() => [emu]);

  /** A context whose waits move the emulator's clock: issuing takes 5 minutes of emulator time, no wall-clock time. */
  const connect = (e: TestEmulator) => {
    const api = createApiClient({ baseUrl: e.url, apiKey: e.apiKey });
    const waits: number[] = [];
    const ctx = createProviderContext({
      api,
      sleep: async (ms) => {
        waits.push(ms);
        e.clock.advance(ms);
      },
    });
    return { api, ctx, waits };
  };

  it('polls the issuing status with growing waits until it is Done, on the emulator clock', async () => {
    emu = await startTestEmulator({ fixtures: FIXTURES, taskDurationMs: 5 * 60_000 });
    const { api, ctx, waits } = connect(emu);
    try {
      await issueCertificate(ctx, { id: 220, cname: 'cdn.example.com', address: 'cdn_resource.site' });
    } finally {
      await api.close();
    }
    const polls = emu.requests.filter((r) => /^\/cdn\/sslData\/\d+\/status$/.test(r.path));
    expect(polls.length).toBe(waits.length + 1);
    expect(waits.slice(0, 5)).toEqual([1000, 2000, 4000, 8000, 15_000]);
    expect(waits.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(5 * 60_000);
    expect(emu.state.cdnResources.get(220)).toMatchObject({ sslEnabled: true, sslData: 1 });
  });

  it('a Failed issuing throws CertificateIssueError with the reason and detaches the certificate', async () => {
    emu = await startTestEmulator({ fixtures: FIXTURES, taskDurationMs: 60_000 });
    const { api, ctx } = connect(emu);
    try {
      const issuing = issueCertificate(ctx, { id: 221, cname: 'late.example.invalid', address: 'cdn_resource.late' });
      await expect(issuing).rejects.toBeInstanceOf(CertificateIssueError);
      await expect(issuing).rejects.toMatchObject({ code: 'EDGEFORM_CERTIFICATE_NOT_ISSUED', address: 'cdn_resource.late' });
      await expect(issuing).rejects.toThrow("the Let's Encrypt certificate for late.example.invalid was not issued: Failed: DNSProblem");
    } finally {
      await api.close();
    }
    expect(emu.state.cdnResources.get(221)).toMatchObject({ sslEnabled: false, sslData: null });
  });
});
