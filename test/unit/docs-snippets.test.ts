import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { isMap, isScalar, parse, parseDocument, type Pair, type YAMLMap } from 'yaml';
import { describe, expect, it } from 'vitest';
import { formatStackText } from '../../src/config/format-stack.js';
import { loadStack } from '../../src/config/load-stack.js';
import { readSourceFile } from '../../src/config/source-tree.js';
import { ALL_KINDS } from '../../src/kinds/registry.js';
import { writeStackFiles } from '../helpers/stack-files.js';
import { TEST_TLS_KEY } from '../helpers/tls-key.js';

/**
 * Every YAML snippet of README.md and docs/*.md that shows a stack is read with the real loader
 * (loadStack: the reader, every kind's schema, references, files) and must be valid and in `fmt`'s
 * canonical order, so the docs cannot show a stack edgeform refuses or rewrites. How a fenced
 * ```yaml (or ```yml) block is taken:
 *
 * - it has a top-level `version:` key: a whole stack;
 * - the line above its fence (blank lines aside) is `<!-- snippet: blocks in examples/FILE.yaml -->`:
 *   entries of `resources:` (at any indentation), checked inside that example stack (each replacing
 *   the example's block of its name, or added), so they may refer to the example's blocks;
 * - that line is `<!-- snippet: not a stack (WHY) -->`: YAML that is not a stack (a CI step, the
 *   emulator's fixtures), not checked;
 * - anything else fails: a snippet is either checked or marked. A fence of another language whose
 *   text starts a stack (`version: 1` then `resources:`) fails too, so a stack cannot hide in a
 *   ```text block.
 *
 * Files a snippet names (`user_data_file: cloud-init.yaml`) are written next to it from
 * FILE_SAMPLES; each `${env:NAME}` gets ENV_SAMPLE.
 */

const ROOT = new URL('../../', import.meta.url);
const DOC_FILES = [
  'README.md',
  ...readdirSync(new URL('docs/', ROOT))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
const read = (path: string) => readFileSync(new URL(path, ROOT), 'utf8');

/** A sample file for each kind's file attribute (KindSpec.files), by attribute. */
const FILE_SAMPLES: Readonly<Record<string, string>> = {
  user_data_file: '#cloud-config\npackages: [nginx]\n',
  public_key_file: read('examples/web-service.pub'),
  vtt_file: read('examples/subtitles/fre.vtt'),
  records_file: '$TTL 300\nwww IN A 192.0.2.10\n',
  certificate_file: read('examples/load-balanced.crt'),
  certificate_chain_file: read('examples/load-balanced.chain.crt'),
  private_key_file: TEST_TLS_KEY,
};
/** The value of every variable a snippet reads: one every sensitive field accepts (an S3 key id and secret). */
const ENV_SAMPLE = 'EXAMPLEKEY0123456789abcdef';
/** The value of a variable whose name ends in `_KEY` where a private key is read (cloud_secret): PEM-framed. */
const PEM_KEY_SAMPLE = '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIExampleExampleExampleExampleExample00\n-----END PRIVATE KEY-----\n';

/** One fenced code block of a Markdown file. */
interface Snippet {
  /** `FILE:LINE` of its opening fence. */
  at: string;
  lang: string;
  /** The HTML comment on the nearest non-blank line above the fence, if any (its text inside `<!--` `-->`). */
  marker: string | undefined;
  /** Its lines, less the fence's own indentation. */
  text: string;
}

type Taken = { as: 'stack' } | { as: 'blocks'; example: string } | { as: 'not-a-stack' } | { as: 'not-yaml' } | { as: 'error'; message: string };

/** The fenced code blocks of a Markdown text (``` or ~~~, indented or not), in order. */
function snippetsOf(file: string, markdown: string): Snippet[] {
  const lines = markdown.split('\n');
  const snippets: Snippet[] = [];
  for (let i = 0; i < lines.length; i++) {
    // A backtick fence's info string holds no backtick (CommonMark): "```` ```yaml ````" is inline code.
    const open = /^( *)(`{3,}(?=[^`]*$)|~{3,})\s*(\S*)/.exec(lines[i]!);
    if (!open) continue;
    const [, indent, fence, lang] = open;
    let end = i + 1;
    while (end < lines.length && !new RegExp(`^ *${fence![0]}{${fence!.length},}\\s*$`).test(lines[end]!)) end++;
    let above = i - 1;
    while (above >= 0 && lines[above]!.trim() === '') above--;
    const comment = above >= 0 ? /^\s*<!--\s*(.*?)\s*-->\s*$/.exec(lines[above]!) : null;
    const body = lines.slice(i + 1, end).map((line) => (line.startsWith(indent!) ? line.slice(indent!.length) : line.trimStart()));
    snippets.push({ at: `${file}:${i + 1}`, lang: lang!.toLowerCase(), marker: comment?.[1], text: body.join('\n') + '\n' });
    i = end;
  }
  return snippets;
}

/** How a snippet is checked (see the file's comment). */
function take(snippet: Snippet): Taken {
  const marked = snippet.marker?.startsWith('snippet:') ? snippet.marker.slice('snippet:'.length).trim() : undefined;
  if (snippet.lang !== 'yaml' && snippet.lang !== 'yml') {
    if (/^version: *1\s*$/m.test(snippet.text) && /^resources:/m.test(snippet.text))
      return { as: 'error', message: `${snippet.at}: a stack in a \`\`\`${snippet.lang || '(no language)'} block: make it \`\`\`yaml so it is checked` };
    return { as: 'not-yaml' };
  }
  if (marked !== undefined) {
    if (/^not a stack\b/.test(marked)) return { as: 'not-a-stack' };
    const blocks = /^blocks in (examples\/[\w./-]+\.ya?ml)$/.exec(marked);
    if (blocks) return { as: 'blocks', example: blocks[1]! };
    return { as: 'error', message: `${snippet.at}: unknown marker "<!-- ${snippet.marker} -->": write "snippet: blocks in examples/FILE.yaml" or "snippet: not a stack (why)"` };
  }
  if (/^version:/m.test(snippet.text)) return { as: 'stack' };
  return {
    as: 'error',
    message:
      `${snippet.at}: a yaml snippet that is no whole stack (no top-level version:) and is not marked: ` +
      'add "version: 1" to make it a stack, or put "<!-- snippet: blocks in examples/FILE.yaml -->" or "<!-- snippet: not a stack (why) -->" on the line above its fence',
  };
}

/** The text without the indentation all its lines share. */
function dedent(text: string): string {
  const lines = text.split('\n');
  const indent = Math.min(...lines.filter((l) => l.trim() !== '').map((l) => /^ */.exec(l)![0].length));
  return lines.map((l) => l.slice(indent)).join('\n');
}

/** The example stack with the snippet's blocks put into its `resources:` (replacing those of the same name). */
function intoExample(example: string, blocks: string): string {
  const doc = parseDocument(read(example));
  const resources = doc.get('resources', true) as YAMLMap;
  const fragment = parseDocument(dedent(blocks)).contents;
  if (!isMap(fragment)) throw new Error('the snippet is no mapping of blocks');
  for (const pair of fragment.items as Array<Pair<unknown, unknown>>) resources.set(isScalar(pair.key) ? pair.key.value : pair.key, pair.value);
  return doc.toString();
}

/** ENV_SAMPLE for each variable the text reads. */
function envOf(text: string): Record<string, string> {
  return Object.fromEntries([...text.matchAll(/\$\{env:(\w+)\}/g)].map((m) => [m[1]!, /TLS_KEY/.test(m[1]!) ? PEM_KEY_SAMPLE : ENV_SAMPLE]));
}

/** Writes the stack with a sample of every file its blocks name, loads it with the variables it reads set, and returns the problems. */
async function problemsOf(text: string): Promise<string[]> {
  const files: Record<string, string> = { 'stack.yaml': text };
  const resources = (parse(text) as { resources?: Record<string, Record<string, unknown>> } | null)?.resources ?? {};
  for (const block of Object.values(resources)) {
    const fields = ALL_KINDS[block?.['type'] as keyof typeof ALL_KINDS]?.files ?? {};
    for (const field of Object.keys(fields)) if (typeof block[field] === 'string') files[block[field]] = FILE_SAMPLES[field]!;
  }
  const dir = writeStackFiles(files);
  const { diagnostics } = await loadStack(join(dir, 'stack.yaml'), envOf(text));
  return diagnostics.map((d) => `${d.range ? `${d.range.start.line}:${d.range.start.column}: ` : ''}${d.severity}: ${d.summary}`);
}

describe('how a docs snippet is taken', () => {
  const snippet = (lang: string, text: string, marker?: string): Snippet => ({ at: 'x.md:1', lang, marker, text });

  it('takes a yaml block with version: as a whole stack, and the marked ones as marked', () => {
    expect(take(snippet('yaml', 'version: 1\nresources: {}\n'))).toEqual({ as: 'stack' });
    expect(take(snippet('yml', '  a:\n    type: fastedge_app\n', 'snippet: blocks in examples/edge-apps.yaml'))).toEqual({ as: 'blocks', example: 'examples/edge-apps.yaml' });
    expect(take(snippet('yaml', '- uses: x\n', 'snippet: not a stack (a CI step)'))).toEqual({ as: 'not-a-stack' });
    expect(take(snippet('sh', 'edgeform plan\n'))).toEqual({ as: 'not-yaml' });
  });

  it('fails a yaml block that is neither a stack nor marked, an unknown marker, and a stack in another language', () => {
    expect(take(snippet('yaml', 'resources:\n  a: { type: fastedge_app, app_id: 1 }\n'))).toMatchObject({ as: 'error', message: expect.stringMatching(/^x\.md:1: .* not marked/) });
    expect(take(snippet('yaml', 'a: 1\n', 'snippet: fragment'))).toMatchObject({ as: 'error', message: expect.stringMatching(/unknown marker/) });
    expect(take(snippet('yaml', 'a: 1\n', 'other comment'))).toMatchObject({ as: 'error' });
    expect(take(snippet('text', 'version: 1\nresources:\n  a: {}\n'))).toMatchObject({ as: 'error', message: expect.stringMatching(/make it ```yaml/) });
  });

  it('finds fences indented under a list item, and the marker above a blank line', () => {
    const found = snippetsOf(
      'x.md',
      ['1. Step:', '', '   <!-- snippet: not a stack -->', '', '   ```yaml', '   a: 1', '     b: 2', '   ```', '', '```` ```yaml ```` is code', '```', 'x', '```', ''].join('\n'),
    );
    expect(found).toEqual([
      { at: 'x.md:5', lang: 'yaml', marker: 'snippet: not a stack', text: 'a: 1\n  b: 2\n' },
      { at: 'x.md:11', lang: '', marker: undefined, text: 'x\n' },
    ]);
  });

  it('has a sample for every file attribute a kind declares', () => {
    const declared = Object.values(ALL_KINDS).flatMap((kind) => Object.keys(kind.files ?? {}));
    expect(declared.length).toBeGreaterThan(0);
    expect(Object.keys(FILE_SAMPLES).sort()).toEqual(declared.sort());
  });
});

describe('the stacks shown in README.md and docs/', () => {
  const snippets = DOC_FILES.flatMap((file) => snippetsOf(file, read(file)));
  const taken = snippets.map((s) => ({ snippet: s, taken: take(s) }));
  const stacks = taken.filter((t) => t.taken.as === 'stack');
  const blocks = taken.filter((t) => t.taken.as === 'blocks');

  it('are each checked or marked', () => {
    expect(stacks.length).toBeGreaterThan(10);
    expect(blocks.length).toBeGreaterThan(0);
    expect(taken.flatMap((t) => (t.taken.as === 'error' ? [t.taken.message] : []))).toEqual([]);
  });

  it.each(stacks.map((t) => [t.snippet.at, t.snippet] as const))('%s is a valid stack in canonical order', async (_at, snippet) => {
    expect(await problemsOf(snippet.text)).toEqual([]);
    const formatted = formatStackText(snippet.text);
    expect(formatted.ok && formatted.changed ? formatted.text : snippet.text, 'edgeform fmt would change it').toBe(snippet.text);
  });

  it.each(blocks.map((t) => [t.snippet.at, t.snippet, t.taken] as const))('%s holds valid blocks in canonical order', async (_at, snippet, how) => {
    const wrapped = `version: 1\nresources:\n${dedent(snippet.text)
      .split('\n')
      .map((l) => (l === '' ? l : `  ${l}`))
      .join('\n')}`;
    // The stack reader reads the snippet's own text (the example is rewritten by the yaml library).
    expect(readSourceFile('snippet.yaml', wrapped, envOf(wrapped)).diagnostics.map((d) => d.summary)).toEqual([]);
    expect(await problemsOf(intoExample((how as { example: string }).example, snippet.text))).toEqual([]);
    const formatted = formatStackText(wrapped);
    expect(formatted.ok && formatted.changed ? formatted.text : wrapped, 'edgeform fmt would change it').toBe(wrapped);
  });
});
