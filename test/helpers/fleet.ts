import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { writeStackFiles } from './stack-files.js';

const PUBLIC_KEY = readFileSync(fileURLToPath(new URL('../../examples/web-service.pub', import.meta.url)), 'utf8');
const VTT = 'WEBVTT\n\n1\n00:00:01.000 --> 00:00:04.000\nBonjour\n';
const ZONE = '$TTL 300\n@ IN SOA ns1 hostmaster 1 2 3 4 5\n@ NS ns1.other.net.\nwww A 192.0.2.1\n';

/**
 * A fleet under one root, as `edgeform stacks` finds it: file stacks reading a key file, a WebVTT
 * file and a zone file; a directory stack (a file with `version: 1` and a fragment); an invalid
 * stack; and what is never a stack (a compose file, a hidden folder's and node_modules' YAML, a
 * text file). Relative path → text.
 */
export const FLEET_FILES: Readonly<Record<string, string>> = {
  'prod/web.yaml': `version: 1
name: web-prod
defaults: { project_id: 1, region_id: 76 }
resources:
  ip: { type: cloud_floating_ip, tags: { env: prod } }
  deploy: { type: cloud_ssh_key, name: deploy, public_key_file: keys/deploy.pub }
`,
  'prod/keys/deploy.pub': PUBLIC_KEY,
  'media/subtitles.yaml': `version: 1
resources:
  french: { type: streaming_video_subtitle, video_id: 9876, language: fre, vtt_file: fre.vtt }
`,
  'media/fre.vtt': VTT,
  'dns/zone.yaml': `version: 1 # the zone and its records
resources:
  main: { type: dns_zone, name: example.com, records_file: example.com.zone }
`,
  'dns/example.com.zone': ZONE,
  'multi/network.yaml': `version: 1
name: multi
defaults: { project_id: 2, region_id: 8 }
resources:
  ip: { type: cloud_floating_ip }
`,
  'multi/compute.yaml': `resources:
  vm: { type: cloud_instance, instance_id: a7e7e8d6-0b4c-4c2e-9d1e-2f0f0c7b9a11, flavor_id: g2-standard-4-8 }
`,
  'broken.yaml': 'version: 1\nresources:\n  x: { type: cloud_floating_ip, project_id: 1, region_id: 76, bogus: 1 }\n',
  'compose.yaml': 'version: "3"\nservices:\n  web: { image: nginx }\n',
  'notes.yml': 'title: not a stack\n',
  'README.txt': 'version: 1\n',
  '.github/workflows/ci.yml': 'version: 1\nresources: {}\n',
  'node_modules/pkg/stack.yaml': 'version: 1\nresources: {}\n',
};

/** Writes FLEET_FILES (and `extra`) into a fresh temporary directory and returns it. */
export function writeFleet(extra: Record<string, string> = {}): string {
  return writeStackFiles({ ...FLEET_FILES, ...extra });
}

/** The GET requests the emulator answered, control routes left out: what a sweep read. */
export function readsSeen(emu: { requests: ReadonlyArray<{ method: string; path: string }> }): string[] {
  return emu.requests.filter((r) => r.method === 'GET' && !r.path.startsWith('/__emulator/')).map((r) => r.path);
}

/** The JSON documents of a sweep's output (`plan|drift --stacks --format json`), one a line. */
export function sweepDocuments(stdout: string): Array<Record<string, any>> {
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, any>);
}
