import { yamlLibrary } from './yaml-library.js';

/**
 * The most bytes a stack (all its files together) may have: far above any real stack, low
 * enough that parsing it stays within a few hundred megabytes of memory (the yaml library
 * needs about 35 bytes per character of a double-quoted string).
 */
export const MAX_STACK_BYTES = 16 * 1024 * 1024;

/** The longest value (or comment, or run of spaces) a stack may hold: no field needs more than a few hundred characters. */
export const MAX_VALUE_LENGTH = 1024 * 1024;

/**
 * The most YAML values (scalars, lists, mappings) a stack may hold, counting every alias
 * expansion. The yaml library needs about a kilobyte of memory per value it parses, so this,
 * not the byte limit, is what bounds memory for a file like `[0,0,0,...]`.
 */
export const MAX_STACK_VALUES = 250_000;

/** The deepest a value may be nested (a stack needs about six levels). */
export const MAX_DEPTH = 64;

/**
 * The yaml library's alias limit (`maxAliasCount`): how often an anchor may be used, divided
 * by how much aliasing its value itself holds. It stops alias bombs ("billion laughs") before
 * they expand; MAX_STACK_VALUES bounds what a large anchor used many times expands to.
 */
export const MAX_ALIAS_COUNT = 10_000;

/** What is left of the limits while the files of one stack are read. */
export interface StackBudget {
  /** Bytes left of MAX_STACK_BYTES. */
  bytes: number;
  /** Values left of MAX_STACK_VALUES, as written in the files (checked before parsing). */
  values: number;
  /** Values left of MAX_STACK_VALUES after expanding aliases (checked while converting). */
  expanded: number;
}

/** A fresh budget for one stack. */
export function createStackBudget(): StackBudget {
  return { bytes: MAX_STACK_BYTES, values: MAX_STACK_VALUES, expanded: MAX_STACK_VALUES };
}

/** Why a file is refused before it is parsed, and the offset in its text where the limit was crossed. */
export interface ScanProblem {
  code: 'stack-too-large' | 'too-deep' | 'value-too-long';
  summary: string;
  detail: string;
  offset: number;
}

/** Lexer tokens that start a value: a scalar, a flow collection, a block sequence item, an alias. */
const VALUE_TOKENS = new Set<string | null>([
  null,
  'single-quoted-scalar',
  'double-quoted-scalar',
  'block-scalar-header',
  'flow-seq-start',
  'flow-map-start',
  'seq-item-ind',
  'alias',
]);

/**
 * Counts the values of a YAML text with the yaml library's lexer (a generator: no tree is
 * built) and checks nesting and the length of every token, so a file that would exhaust
 * memory or the call stack in the parser is refused first, at a place that does not depend
 * on how deep the parser's stack happens to be. Takes `budget.values` for the values found.
 * Linear in the text's length.
 *
 * Nesting is flow brackets plus block levels: a value, `-` or `?` that starts further right
 * than the open block levels opens one more (`- - - x` opens three), one at or left of a level
 * closes it: the levels the converter counts, give or take a key and its value on one line.
 *
 * With `lexemes`, every lexeme is also pushed onto it, so that the parser can be fed the same
 * lexemes (see readSourceFile) instead of lexing the text a second time.
 */
export function scanYaml(text: string, budget: StackBudget, lexemes?: string[]): ScanProblem | undefined {
  let values = 0;
  let flowDepth = 0;
  /** Columns of the open block levels. */
  const blockColumns: number[] = [];
  let offset = 0;
  let lineStart = 0;
  let previous = '';
  const { CST, Lexer } = yamlLibrary();
  /** Lexer markers that stand for no source text. */
  const markers = new Set<string>([CST.DOCUMENT, CST.SCALAR, CST.FLOW_END]);
  for (const token of new Lexer().lex(text)) {
    lexemes?.push(token);
    const type = CST.tokenType(token);
    if (token.length > MAX_VALUE_LENGTH) {
      const what = previous === CST.SCALAR || type === 'single-quoted-scalar' || type === 'double-quoted-scalar' ? 'value' : type === 'comment' ? 'comment' : 'token';
      return {
        code: 'value-too-long',
        summary: `this ${what} is ${token.length.toLocaleString('en-US')} characters long; edgeform reads at most ${MAX_VALUE_LENGTH.toLocaleString('en-US')}`,
        detail: 'No field of a stack needs a value anywhere near this long; check that the file is the stack you meant.',
        offset,
      };
    }
    previous = token;
    const isValue = VALUE_TOKENS.has(type);
    if (isValue) {
      values += 1;
      if (values > budget.values) {
        return {
          code: 'stack-too-large',
          summary: `the stack holds more than ${MAX_STACK_VALUES.toLocaleString('en-US')} YAML values; edgeform reads at most that many`,
          detail: 'Split the stack, or remove what it does not need; this limit keeps edgeform within bounded memory.',
          offset,
        };
      }
    }
    if (type === 'doc-start') blockColumns.length = 0;
    if (flowDepth === 0 && (isValue || type === 'explicit-key-ind')) {
      const column = offset - lineStart;
      while (blockColumns.length > 0 && blockColumns[blockColumns.length - 1]! >= column) blockColumns.pop();
      blockColumns.push(column);
    }
    if (type === 'flow-seq-start' || type === 'flow-map-start') flowDepth += 1;
    else if ((type === 'flow-seq-end' || type === 'flow-map-end') && flowDepth > 0) flowDepth -= 1;
    // The outermost flow collection opened a block level already.
    if (blockColumns.length + Math.max(flowDepth - 1, 0) > MAX_DEPTH) return { ...tooDeep(), offset };
    if (markers.has(token)) continue;
    const newline = token.lastIndexOf('\n');
    if (newline !== -1) lineStart = offset + newline + 1;
    offset += token.length;
  }
  budget.values -= values;
  return undefined;
}

/** The problem of a value nested deeper than MAX_DEPTH (the lexer's and the converter's words). */
export function tooDeep(): Omit<ScanProblem, 'offset'> {
  return {
    code: 'too-deep',
    summary: `values are nested more than ${MAX_DEPTH} levels deep here`,
    detail: 'A stack needs only a few levels; edgeform refuses deeper nesting so that reading it stays bounded.',
  };
}
