import { createHash } from 'node:crypto';
import { readFile, realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { ALL_KINDS } from '../kinds/registry.js';
import { decodeStackText } from './decode-text.js';
import type { Diagnostic, SourceRange } from './diagnostics.js';
import type { TypedBlock } from './validate-block.js';

/**
 * Reads the files that blocks name in their kinds' file attributes (KindSpec.files, such as a
 * subtitle's `vtt_file`) and puts each file's text into the attribute it feeds (`vtt`), so the
 * stack's digest covers the file's content and no provider reads a file. A path is relative to
 * the stack file that names it and must stay inside the stack's directory `stackDir` (symbolic
 * links are followed before that is checked); the file must be a regular UTF-8 file within the
 * attribute's size limit, and its text must pass the attribute's check. Every problem is a
 * diagnostic: at the attribute's value in the stack when the file cannot be used, at the line
 * and column of the file itself when its text is wrong (that file's text then goes into
 * `files`, for the code frame). A sensitive file (FileField.sensitive: a private key) is never
 * put into an attribute nor into `files`: its problems stand at the attribute and never quote
 * it, its attribute `into` gets a `${env:NAME}` reference named after the text's sha256, and
 * the text is returned as that variable's value (variable → text; see Stack.sensitiveFiles).
 * Returns those, and how many bytes it read.
 */
export async function resolveFileFields(
  blocks: Iterable<TypedBlock>,
  stackDir: string,
  diagnostics: Diagnostic[],
  files: Map<string, string>,
): Promise<{ sensitive: Record<string, string>; bytes: number }> {
  const sensitive: Record<string, string> = {};
  let root: string | null = null;
  let read = 0;
  for (const typed of blocks) {
    const block = typed.block;
    const fileFields = block ? ALL_KINDS[block.type].files : undefined;
    if (!block || !fileFields) continue;
    const attributes = block.attributes as Record<string, unknown>;
    for (const [field, spec] of Object.entries(fileFields)) {
      const path = attributes[field];
      const at = block.fieldSources[field]?.range;
      if (typeof path !== 'string' || at === undefined) continue;
      const fail = (code: string, summary: string, detail: string, range: SourceRange = at) => {
        diagnostics.push({ severity: 'error', code, summary, detail, address: block.address, range });
      };
      const shown = join(dirname(at.filename), path);
      const target = resolve(dirname(at.filename), path);
      root ??= await realpath(stackDir).catch(() => resolve(stackDir));
      if (isAbsolute(path) || !inside(resolve(stackDir), target)) {
        fail(
          'file-outside-stack',
          `${field} ${JSON.stringify(path)} is outside the stack's directory`,
          `${field} names a file relative to the stack file, inside ${stackDir}; move the file there.`,
        );
        continue;
      }
      let bytes: Buffer;
      try {
        const real = await realpath(target);
        if (!inside(root, real)) {
          fail(
            'file-outside-stack',
            `${field} ${JSON.stringify(path)} leads outside the stack's directory (through a symbolic link)`,
            `The file must be inside ${stackDir}; copy it there.`,
          );
          continue;
        }
        const info = await stat(real);
        if (!info.isFile()) {
          fail('file-unreadable', `${field} ${JSON.stringify(path)} is not a regular file`, `${field} names ${spec.what}.`);
          continue;
        }
        if (info.size > spec.maxBytes) {
          fail(
            'file-too-large',
            `${field} ${JSON.stringify(path)} is too large (${info.size} bytes; at most ${spec.maxBytes})`,
            `The platform takes ${spec.what} of at most ${spec.maxBytes} bytes.`,
          );
          continue;
        }
        bytes = await readFile(real);
        read += bytes.length;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT')
          fail('file-not-found', `${field} ${JSON.stringify(path)}: no such file (looked for ${shown})`, `${field} is relative to the stack file that names it (${at.filename}).`);
        else fail('file-unreadable', `${field} ${JSON.stringify(path)} cannot be read: ${(error as Error).message}`, `${field} names ${spec.what}.`);
        continue;
      }
      const decoded = decodeStackText(bytes);
      if (!decoded.ok) {
        fail('invalid-file', `${shown} is not a UTF-8 text file: ${decoded.summary}`, `${field} names ${spec.what}, which must be UTF-8 text.`, rangeAt(shown, decoded.position));
        continue;
      }
      const problem = spec.check(decoded.text);
      if (problem && spec.sensitive) {
        fail('invalid-file', `${field} ${JSON.stringify(path)} is not ${spec.what}: ${problem.message}`, `${shown} is sensitive: its text is not shown.`);
        continue;
      }
      if (spec.sensitive) {
        const name = sensitiveFileVariable(decoded.text);
        sensitive[name] = decoded.text;
        attributes[spec.into] = `\${env:${name}}`;
        continue;
      }
      if (problem) {
        files.set(shown, decoded.text);
        fail(
          'invalid-file',
          `${shown} is not ${spec.what}: ${problem.message}`,
          `Read for ${field} of ${block.address} (${at.filename}:${at.start.line}:${at.start.column}).`,
          rangeAt(shown, problem),
        );
        continue;
      }
      attributes[spec.into] = decoded.text;
    }
  }
  return { sensitive, bytes: read };
}

/** The variable a sensitive file's text is the value of: `EDGEFORM_FILE_SHA256_` and the text's sha256 (hex), a fingerprint that never shows it. */
function sensitiveFileVariable(text: string): string {
  return `EDGEFORM_FILE_SHA256_${createHash('sha256').update(text).digest('hex')}`;
}

/**
 * The environment a stack's run reads its sensitive values from: `env` with the text of each
 * sensitive file the stack names (Stack.sensitiveFiles) as the value of its variable, so such a
 * text is redacted and sent exactly as a sensitive `${env:NAME}` value is.
 */
export function withSensitiveFiles(env: NodeJS.ProcessEnv, stack: { sensitiveFiles?: Readonly<Record<string, string>> }): NodeJS.ProcessEnv {
  return stack.sensitiveFiles === undefined ? env : { ...env, ...stack.sensitiveFiles };
}

function inside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

function rangeAt(filename: string, at: { line: number; column: number }): SourceRange {
  return { filename, start: { line: at.line, column: at.column }, end: { line: at.line, column: at.column } };
}
