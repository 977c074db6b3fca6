/**
 * Preloaded with `node --import` (see loadedModules in start-up.test.ts): appends the URL of
 * every module the process loads, one per line, to the file named by TRACE_LOADS_FILE. ES
 * modules (and the CommonJS modules they import) are seen by a loader hook, which writes each
 * URL before the module's code can run; CommonJS modules required by CommonJS ones (undici's
 * insides) are added from the require cache at exit. Plain JavaScript: node loads it before
 * any TypeScript tooling.
 */
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';

const out = process.env.TRACE_LOADS_FILE;
if (out) {
  const hooks = `
    import { appendFileSync } from 'node:fs';
    let out;
    export function initialize(data) { out = data.out; }
    export async function load(url, context, nextLoad) {
      appendFileSync(out, url + '\\n');
      return nextLoad(url, context);
    }
  `;
  register(`data:text/javascript,${encodeURIComponent(hooks)}`, { data: { out } });
  process.on('exit', () => {
    const required = Object.keys(createRequire(import.meta.url)('node:module')._cache);
    appendFileSync(out, required.map((file) => `${pathToFileURL(file).href}\n`).join(''));
  });
}
