// What the CI scripts share: arguments, the marker edgeform writes, step outputs, and one small
// JSON-over-HTTP client for the GitHub and GitLab REST APIs (plain fetch, no dependencies).
// Every answer is untrusted: pagination only follows links on the API's own origin, error
// messages are cut and stripped of control characters, and the token never appears in them.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

/** The longest body the scripts post: GitHub refuses comments and issue bodies over 65,536 characters. */
export const BODY_LIMIT = 65_000;

/** A failure the user can act on: printed as one line (a GitHub annotation in Actions), exit 1, no stack trace. */
export class CiScriptError extends Error {
  name = 'CiScriptError';
}

/**
 * The hidden first line of edgeform's Markdown (src/render/plan-markdown.ts `commentMarker`):
 * the key that finds the one comment or issue of a stack. Kept identical by a test.
 */
export function markerFor(kind, stack) {
  return `<!-- edgeform:${kind} stack=${stack.replace(/--/g, '-\u2011')} -->`;
}

/**
 * The hidden first line of a merged fleet report (src/render/report-merge.ts `reportMarker`):
 * the key that finds the fleet's one drift issue. Kept identical by a test.
 */
export function reportMarkerFor(name) {
  return `<!-- edgeform:report name=${name.replace(/--/g, '-\u2011')} -->`;
}

/**
 * Name of the artifact holding the reviewed plan of `stack` at commit `sha`: the plan job
 * uploads under it and the apply job looks for exactly it. Artifact names may not hold `/`.
 */
export function planArtifactName(stack, sha) {
  if (!/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(sha ?? '')) throw new CiScriptError(`not a commit sha: ${JSON.stringify(sha ?? '')}`);
  return `edgeform-plan-${sha}-${stack.replace(/[^A-Za-z0-9._-]+/g, '_')}`;
}

/**
 * Parses the command line of a script (`--name value` options only) and the platform it runs on:
 * `--platform`, else GitHub Actions or GitLab CI from their own variables.
 */
export function readArgs(options, argv = process.argv.slice(2)) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { platform: { type: 'string' }, ...options }, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new CiScriptError(error.message);
  }
  for (const [name, spec] of Object.entries(options)) {
    if (spec.required && (parsed[name] === undefined || parsed[name] === '')) throw new CiScriptError(`--${name} is required`);
  }
  const platform = parsed.platform ?? (process.env.GITHUB_ACTIONS === 'true' ? 'github' : process.env.GITLAB_CI === 'true' ? 'gitlab' : undefined);
  if (platform !== 'github' && platform !== 'gitlab') throw new CiScriptError('cannot tell the CI platform: pass --platform github or --platform gitlab');
  return { ...parsed, platform };
}

/**
 * The Markdown to post: the file edgeform wrote, or, when it is missing or empty (edgeform did
 * not get that far), a short note under the same marker that points at the job log. Cut at a
 * line boundary below {@link BODY_LIMIT}.
 */
export function readBody(file, { kind, stack, exitCode, logUrl }) {
  const marker = markerFor(kind, stack);
  let body = file && existsSync(file) ? readFileSync(file, 'utf8') : '';
  if (body.trim() === '') {
    const what = exitCode === undefined || exitCode === '' ? 'did not run' : exitCode === '1' ? 'failed (exit 1)' : `wrote no report (exit ${exitCode})`;
    body = `${marker}\n### edgeform ${kind} for \`${stack}\` ${what}\n\nNo report was written; see the job log${logUrl ? `: ${logUrl}` : ''}.\n`;
  }
  if (!body.startsWith(marker)) throw new CiScriptError(`${file} does not start with ${marker}: was it written by edgeform ${kind} ${stack} --format markdown?`);
  if (body.length > BODY_LIMIT) {
    const cut = body.lastIndexOf('\n', BODY_LIMIT - 200);
    body = `${body.slice(0, cut)}\n\n_Cut at ${BODY_LIMIT} characters; the full report is in the job log._\n`;
  }
  return body;
}

/** Sets a step output: appended to `$GITHUB_OUTPUT` in GitHub Actions, always printed as `name=value`. */
export function setOutput(name, value) {
  const text = String(value);
  if (/[\r\n]/.test(text)) throw new CiScriptError(`output ${name} holds a line break`);
  if (process.env.GITHUB_OUTPUT) appendFileSync(process.env.GITHUB_OUTPUT, `${name}=${text}\n`);
  console.log(`${name}=${text}`);
}

/** The event payload of a GitHub Actions run (`$GITHUB_EVENT_PATH`), or `{}` outside one. */
export function githubEvent(env = process.env) {
  if (!env.GITHUB_EVENT_PATH) return {};
  try {
    return JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, 'utf8'));
  } catch (error) {
    throw new CiScriptError(`cannot read the event payload ${env.GITHUB_EVENT_PATH}: ${error.message}`);
  }
}

/**
 * The commit a change request's plan is for: the pull request's head (GitHub), the merge
 * request's source branch head in merged-results pipelines, else the pipeline's commit (GitLab).
 */
export function changeHeadSha(platform, env = process.env) {
  const sha = platform === 'github' ? githubEvent(env).pull_request?.head?.sha : env.CI_MERGE_REQUEST_SOURCE_BRANCH_SHA || env.CI_COMMIT_SHA;
  if (!sha) throw new CiScriptError(`no head commit in this ${platform === 'github' ? 'run (not a pull_request event)' : 'pipeline'}: pass --sha`);
  return sha;
}

/** Reads an environment variable the script cannot work without. */
export function requireEnv(name, why) {
  const value = process.env[name];
  if (value === undefined || value === '') throw new CiScriptError(`${name} is not set${why ? `: ${why}` : ''}`);
  return value;
}

/** Runs a script's main function: a {@link CiScriptError} or an API failure is one line and exit 1. */
export function runMain(main) {
  main().catch((error) => {
    const known = error instanceof CiScriptError || error instanceof ApiError;
    const message = known ? error.message : `unexpected error (this is a bug in the script): ${error?.stack ?? error}`;
    console.error(process.env.GITHUB_ACTIONS === 'true' ? `::error::${message}` : `error: ${message}`);
    process.exitCode = 1;
  });
}

/** A refused or failed API call: method, path, status and the platform's message, never the token. */
export class ApiError extends Error {
  name = 'ApiError';
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

const MAX_PAGES = 100;

/**
 * A JSON client for one REST API: `request` sends one call and throws {@link ApiError} on any
 * non-2xx answer; `paginate` yields the items of every page, following `Link: rel="next"` only
 * while it stays on the API's origin (the token goes nowhere else). Plain `http:` is accepted
 * only for loopback hosts, so a token never travels in clear text.
 */
export function createApiClient({ name, baseUrl, headers, token }) {
  let base;
  try {
    base = new URL(baseUrl);
  } catch {
    throw new CiScriptError(`${name} API URL is not a URL: ${JSON.stringify(baseUrl)}`);
  }
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(base.hostname);
  if (base.protocol !== 'https:' && !(base.protocol === 'http:' && loopback)) throw new CiScriptError(`${name} API URL must use https: ${base.origin}`);
  const prefix = base.pathname.replace(/\/+$/, '');
  const scrub = (text) =>
    text
      .split(token)
      .join('[REDACTED]')
      .replace(/[\u0000-\u001f\u007f]+/g, ' ')
      .slice(0, 300);

  async function send(method, url, body, accept) {
    const init = { method, headers: { ...headers, accept: accept ?? 'application/json' }, signal: AbortSignal.timeout(60_000), redirect: 'manual' };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers['content-type'] = 'application/json';
    }
    const shown = `${method} ${url.pathname}`;
    let res;
    for (let hops = 0; ; hops++) {
      try {
        res = await fetch(url, init);
      } catch (error) {
        throw new ApiError(`${name} API: ${shown} failed: ${scrub(String(error?.cause?.message ?? error?.message ?? error))}`, 0);
      }
      const location = res.status >= 300 && res.status < 400 ? res.headers.get('location') : null;
      if (!location) break;
      if (hops >= 5 || method !== 'GET') throw new ApiError(`${name} API: ${shown} redirected ${hops >= 5 ? 'too often' : `a ${method}`}`, res.status);
      await res.body?.cancel();
      const target = new URL(location, url);
      // A redirect off the API's origin (a pre-signed storage URL) gets no credentials.
      if (target.origin !== base.origin) init.headers = { accept: init.headers.accept };
      url = target;
    }
    if (!res.ok) {
      const text = await res.text().catch(() => '');
      let detail = text;
      try {
        const parsed = JSON.parse(text);
        detail = typeof parsed?.message === 'string' ? parsed.message : typeof parsed?.error === 'string' ? parsed.error : JSON.stringify(parsed?.message ?? parsed);
      } catch {
        // not JSON: keep the text
      }
      throw new ApiError(`${name} API: ${shown} answered ${res.status}${detail ? `: ${scrub(detail)}` : ''}`, res.status);
    }
    return res;
  }

  function urlFor(path, query) {
    const url = new URL(prefix + path, base);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    return url;
  }

  async function parse(res, shown) {
    const text = await res.text();
    if (text === '') return undefined;
    try {
      return JSON.parse(text);
    } catch {
      throw new ApiError(`${name} API: ${shown} answered ${res.status} with a body that is not JSON`, res.status);
    }
  }

  return {
    /** One call; resolves to the parsed JSON answer (undefined when empty). */
    async request(method, path, { query, body } = {}) {
      const url = urlFor(path, query);
      return parse(await send(method, url, body), `${method} ${url.pathname}`);
    },
    /** One GET whose answer is a file: resolves to its bytes. */
    async download(path) {
      const res = await send('GET', urlFor(path), undefined, '*/*');
      return Buffer.from(await res.arrayBuffer());
    },
    /** Every item of a listing, page after page; `pick` takes the array out of a page (default: the page itself). */
    async *paginate(path, query, pick = (page) => page) {
      let url = urlFor(path, { per_page: 100, ...query });
      for (let n = 0; n < MAX_PAGES; n++) {
        const res = await send('GET', url);
        const items = pick(await parse(res, `GET ${url.pathname}`));
        if (!Array.isArray(items)) throw new ApiError(`${name} API: GET ${url.pathname} did not answer a list`, res.status);
        yield* items;
        const next = nextLink(res.headers.get('link'));
        if (!next) return;
        const nextUrl = new URL(next, url);
        if (nextUrl.origin !== base.origin) throw new ApiError(`${name} API: GET ${url.pathname} pointed the next page at another origin (${nextUrl.origin})`, res.status);
        url = nextUrl;
      }
      throw new ApiError(`${name} API: GET ${path} has more than ${MAX_PAGES} pages`, 0);
    },
  };
}

/** The `rel="next"` target of an RFC 8288 Link header, if any. */
export function nextLink(header) {
  for (const part of (header ?? '').split(',')) {
    const m = /^\s*<([^>]*)>(.*)$/.exec(part);
    if (!m) continue;
    const rel = m[2]
      .split(';')
      .map((p) => /^\s*rel\s*=\s*"?([^"]*)"?\s*$/i.exec(p)?.[1])
      .find((v) => v !== undefined);
    if (rel?.split(/\s+/).includes('next')) return m[1];
  }
  return undefined;
}

/** The forge client of the platform the script runs on (GitHub or GitLab), from the environment. */
export async function forgeFor(platform) {
  const module = platform === 'github' ? await import('./github.mjs') : await import('./gitlab.mjs');
  return module.createForge(process.env);
}
