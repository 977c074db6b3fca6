import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * Unit tests are pure: they start no server and no process (docs/architecture.md, "Tests").
 * A test that needs the emulator, a loopback server or the CLI belongs in test/integration or
 * test/e2e. Held on the imports of every file under test/unit: none may load a module that
 * listens or spawns. The checker is a pure function of a file's text, tested on synthetic files
 * first, so it cannot pass by finding nothing.
 */

/** Node modules that listen, connect or spawn. (undici is allowed: unit tests build its error classes.) */
const NETWORK_OR_PROCESS = /^(node:)?(http|https|http2|net|tls|dgram|child_process|cluster|worker_threads)$/;

/** Project modules that start the emulator, a server or the CLI (by the end of their path). */
const STARTS_SOMETHING = [
  'src/emulator/index.js',
  'src/emulator/server.js',
  'cmd/run-cli.js',
  'cmd/edgeform.js',
  'helpers/emulator.js',
  'helpers/loopback-server.js',
  'helpers/cli.js',
  'helpers/cli-in-process.js',
];

/** The imports (static, dynamic and re-exports) of a file that would start a server or a process. */
function serverOrProcessImports(text: string): string[] {
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.map((f) => f.fileName)
    .filter((name) => NETWORK_OR_PROCESS.test(name) || STARTS_SOMETHING.some((end) => name.endsWith(`/${end}`)));
}

const UNIT = fileURLToPath(new URL('.', import.meta.url));

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

describe('unit tests start no server and no process', () => {
  it('the checker finds an import of the emulator, a loopback server, the CLI, node:http and child_process', () => {
    const text = [
      "import { startTestEmulator } from '../../helpers/emulator.js';",
      "import { startLoopbackServer } from '../helpers/loopback-server.js';",
      "import { runCliInProcess } from '../../helpers/cli-in-process.js';",
      "import { createServer } from 'node:http';",
      "const { spawn } = await import('child_process');",
      "export { startEmulator } from '../../../src/emulator/index.js';",
    ].join('\n');
    expect(serverOrProcessImports(text)).toEqual([
      '../../helpers/emulator.js',
      '../helpers/loopback-server.js',
      '../../helpers/cli-in-process.js',
      'node:http',
      'child_process',
      '../../../src/emulator/index.js',
    ]);
  });

  it('the checker lets pure modules through, and import text inside a string', () => {
    const text = [
      "import { createClock } from '../../../src/emulator/clock.js';",
      "import { captureStream } from '../../helpers/capture.js';",
      "import { readFileSync } from 'node:fs';",
      'const example = "import { createServer } from \'node:http\';";',
    ].join('\n');
    expect(serverOrProcessImports(text)).toEqual([]);
  });

  it('holds for every file under test/unit', () => {
    const files = filesUnder(UNIT);
    expect(files.length).toBeGreaterThan(30);
    const offenders = files.flatMap((file) => serverOrProcessImports(readFileSync(file, 'utf8')).map((name) => `${relative(UNIT, file)} imports ${name}`));
    expect(offenders).toEqual([]);
  });
});
