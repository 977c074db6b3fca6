import { describe, expect, it } from 'vitest';
import { emulatorEnv } from '../../helpers/apply.js';
import { startTestEmulator, type TestEmulator, closeAfterEach } from '../../helpers/emulator.js';
import { importTo, expectPlansClean } from '../../helpers/import.js';

const VM = 'a7e7e8d6-0b4c-4c2e-9d1e-2f0f0c7b9a11';
const DATA = 'b1000000-0000-4000-8000-000000000001';
const FIXTURES = {
  volumes: [{ id: DATA, project_id: 1, region_id: 76, name: 'data', size: 50 }],
  instances: [
    {
      id: VM,
      project_id: 1,
      region_id: 76,
      name: 'web-1',
      status: 'ACTIVE' as const,
      flavor_id: 'g2-standard-2-4',
      available_flavors: ['g2-standard-2-4'],
      volumes: [{ id: DATA, delete_on_termination: false }],
    },
  ],
};

describe('edgeform import of an instance with an attached volume', () => {
  let emu: TestEmulator | undefined;
  closeAfterEach(() => [emu]);

  it('writes the volume as a reference to the imported volume block, and the result plans clean', async () => {
    emu = await startTestEmulator({ fixtures: FIXTURES });
    const env = emulatorEnv(emu);
    const { file, text } = await importTo(['--all'], env);
    expect(text).toMatch(/volume_ids:\n\s+- "\$\{cloud_volume\.data\.id\}"/);
    expect(text).not.toContain(`- ${DATA}`);
    await expectPlansClean(file, env);
  });
});
