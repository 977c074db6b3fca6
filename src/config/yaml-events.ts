import { must } from '../errors.js';
import { COLLECTION_STYLE, EVENT_ID, parseEvents, SCALAR_STYLE, type Event } from 'js-yaml';

/** The events of a file for the stack reader (yaml-reader.ts), in document order. */
export interface EventStream {
  /** The next event, taken; undefined after the last. */
  next(): Event | undefined;
  /** The next event, left in place. */
  peek(): Event | undefined;
}

/**
 * When a large top-level block mapping is parsed in slices: files of at least `from`
 * characters, in slices of about `bytes` characters each. Tests make them small.
 */
export interface Slicing {
  from: number;
  bytes: number;
}

/** How many slices were parsed: for the tests that check a large stack is read in slices. */
export const slicesParsed = { count: 0 };

/**
 * Files from 512 KB on, in slices of 256 KB: a slice's events are read before the next slice is
 * parsed. Smaller slices cost more time than they save memory (the 10,000-block stack of the
 * benchmark, 1.2 MB: 64 KB slices take 0.1 s longer to read, 256 KB ones about 15 ms).
 */
export const DEFAULT_SLICING: Slicing = { from: 512 * 1024, bytes: 256 * 1024 };

/**
 * The events of `text`, as js-yaml's parseEvents gives them, with a large top-level block
 * mapping (the `resources:` of a stack of thousands of blocks) parsed a slice of its entries at
 * a time, as the reading reaches it. Parsing a whole file first holds all its events (100,000
 * and more for 10,000 blocks) until the reading is done: they outlive the young generation and
 * are promoted into the old one, which a short run never collects, so they stay in its peak
 * memory. A slice's events are read and let go before the next slice is parsed.
 *
 * A slice is whole lines of the mapping, starting at one of its keys (a line of exactly its
 * indentation and a key). Parsed alone, it must be a block mapping of that indentation, or the
 * slices do not read as the whole would: `refuse` is called (the reader then reads the file
 * whole), as on any parse error of a slice. Errors of the outer parse are the caller's to catch.
 */
export function eventStream(text: string, options: { filename: string; maxDepth: number }, refuse: () => never, slicing: Slicing | null = DEFAULT_SLICING): EventStream {
  const bodies = slicing !== null && text.length >= slicing.from ? largeBlockMappings(text, slicing.bytes) : [];
  if (bodies.length === 0) return arrayStream(parseEvents(text, options));
  return new SlicedEvents(text, bodies, options, refuse);
}

/** Whether eventStream parses `text` in slices (so that what it holds at once is bounded by a slice, not by the text). */
export function isSliced(text: string, slicing: Slicing | null = DEFAULT_SLICING): boolean {
  return slicing !== null && text.length >= slicing.from && largeBlockMappings(text, slicing.bytes).length > 0;
}

/** Events [from, to) of an array, each cleared once taken (so that what was read can be collected). */
function arrayStream(events: Array<Event | undefined>, from = 0, to = events.length): EventStream & { readonly taken: boolean } {
  let at = from;
  return {
    next() {
      if (at >= to) return undefined;
      const event = events[at];
      events[at++] = undefined;
      return event;
    },
    peek: () => (at < to ? events[at] : undefined),
    get taken() {
      return at >= to;
    },
  };
}

/** A top-level key whose value is a large block mapping, and where its slices start. */
interface Body {
  /** The key's line: [start, end). */
  keyLine: readonly [number, number];
  /** The mapping's indentation. */
  indent: number;
  /** Where each slice starts (a line of one of its keys); the first is the first key's line. */
  cuts: number[];
  /** Where the mapping's text ends: the next top-level line, or the end of the text. */
  end: number;
}

const LF = 10;
const CR = 13;
const SPACE = 32;
const HASH = 35;
const DASH = 45;
const QUESTION = 63;

/** A top-level line holding only a plain key and its colon (and maybe a comment): `resources:`. */
const KEY_ONLY_LINE = /^[A-Za-z_][A-Za-z0-9_-]*:[ ]*(?:#[^\n]*)?\r?$/;

/**
 * The top-level keys whose value is a block mapping of more than one slice. A line at column 0
 * (not a comment) is top level; the lines after a key-only line up to the next top-level line
 * are its value; the first of them with content sets the indentation, and must be a key (not
 * "-" or "?"). A slice starts at a line of exactly that indentation and a key, once the one
 * before holds `bytes` characters.
 */
function largeBlockMappings(text: string, bytes: number): Body[] {
  const bodies: Body[] = [];
  let open: Omit<Body, 'end'> | undefined;
  let lastCut = 0;
  const close = (end: number) => {
    if (open && open.cuts.length > 1) bodies.push({ ...open, end });
    open = undefined;
  };
  for (let start = 0; start < text.length;) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const first = text.charCodeAt(start);
    if (first !== SPACE && first !== HASH && first !== LF && first !== CR) {
      close(start);
      if (KEY_ONLY_LINE.test(text.slice(start, end))) open = { keyLine: [start, end], indent: -1, cuts: [] };
    } else if (open && first === SPACE) {
      let at = start;
      while (text.charCodeAt(at) === SPACE) at += 1;
      const c = text.charCodeAt(at);
      if (at < end && c !== HASH && c !== CR) {
        const indent = at - start;
        if (open.indent === -1) {
          if (c === DASH || c === QUESTION) open = undefined;
          else {
            open.indent = indent;
            open.cuts.push(start);
            lastCut = start;
          }
        } else if (indent === open.indent && c !== DASH && c !== QUESTION && start - lastCut >= bytes) {
          open.cuts.push(start);
          lastCut = start;
        }
      }
    }
    start = end + 1;
  }
  close(text.length);
  return bodies;
}

/**
 * Moves an event's offsets (those it has; -1 is none) by what `at` says, field by field: a
 * slice's thousands of events are moved as they are parsed.
 */
function move(event: Event, at: (offset: number) => number): void {
  switch (event.type) {
    case EVENT_ID.SCALAR:
      if (event.valueStart >= 0) {
        event.valueStart = at(event.valueStart);
        event.valueEnd = at(event.valueEnd);
      }
      break;
    case EVENT_ID.MAPPING:
    case EVENT_ID.SEQUENCE:
      event.start = at(event.start);
      break;
    default:
      break;
  }
  if ('anchorStart' in event && event.anchorStart >= 0) {
    event.anchorStart = at(event.anchorStart);
    event.anchorEnd = at(event.anchorEnd);
  }
  if ('tagStart' in event && event.tagStart >= 0) {
    event.tagStart = at(event.tagStart);
    event.tagEnd = at(event.tagEnd);
  }
}

/**
 * The events of a text with large block mappings: the text without them (the outer events,
 * their offsets moved back to the text's), and each mapping's slices, parsed when the reading
 * reaches them, in place of the empty value its key has in the outer text.
 */
class SlicedEvents implements EventStream {
  private readonly outer: EventStream;
  /** Events ready to be taken, before the outer ones. */
  private queue: EventStream & { readonly taken: boolean } = arrayStream([]);
  /** The body whose key was just taken from the outer events: its value comes next. */
  private keyOf: Body | undefined;
  /** The body being read, and its next slice. */
  private reading: { body: Body; slice: number } | undefined;

  constructor(
    private readonly text: string,
    private readonly bodies: readonly Body[],
    private readonly options: { filename: string; maxDepth: number },
    private readonly refuse: () => never,
  ) {
    // The text without the bodies; an outer offset at or past where a body was taken out moves by its length.
    const parts: string[] = [];
    const shifts: Array<{ from: number; by: number }> = [];
    let kept = 0;
    let removed = 0;
    for (const body of bodies) {
      parts.push(text.slice(kept, body.cuts[0]));
      shifts.push({ from: must(body.cuts[0], 'body.cuts[0]') - removed, by: body.end - must(body.cuts[0], 'body.cuts[0]') });
      removed += body.end - must(body.cuts[0], 'body.cuts[0]');
      kept = body.end;
    }
    parts.push(text.slice(kept));
    const at = (offset: number) => {
      let moved = offset;
      for (const shift of shifts) if (offset >= shift.from) moved += shift.by;
      return moved;
    };
    const outer = parseEvents(parts.join(''), this.options);
    for (const event of outer) move(event, at);
    this.outer = arrayStream(outer);
  }

  next(): Event | undefined {
    this.fill();
    if (!this.queue.taken) return this.queue.next();
    const event = this.outer.next();
    if (event !== undefined) this.keyOf = this.bodyKeyedBy(event);
    return event;
  }

  peek(): Event | undefined {
    this.fill();
    return this.queue.taken ? this.outer.peek() : this.queue.peek();
  }

  /** The body whose key this outer event is (a scalar on the body's key line), if any. */
  private bodyKeyedBy(event: Event): Body | undefined {
    if (event.type !== EVENT_ID.SCALAR || event.valueStart < 0) return undefined;
    return this.bodies.find((b) => event.valueStart >= b.keyLine[0] && event.valueStart < b.keyLine[1]);
  }

  /** Puts the next slice's events in the queue when it is empty and the reading is at a body. */
  private fill(): void {
    if (!this.queue.taken) return;
    if (this.keyOf !== undefined) {
      // The key's value in the outer text: empty, where the body was taken out.
      const body = this.keyOf;
      this.keyOf = undefined;
      const value = this.outer.next();
      if (value?.type !== EVENT_ID.SCALAR || value.valueStart !== -1 || value.anchorStart !== -1 || value.tagStart !== -1 || value.style !== SCALAR_STYLE.PLAIN) this.refuse();
      this.reading = { body, slice: 0 };
    }
    if (this.reading === undefined) return;
    const { body, slice } = this.reading;
    if (slice === body.cuts.length) {
      this.reading = undefined;
      this.queue = arrayStream([{ type: EVENT_ID.POP }]);
      return;
    }
    this.reading.slice += 1;
    this.queue = this.parseSlice(body, slice);
  }

  /** A slice's events, without its document and mapping (but for the first's mapping), at the text's offsets. */
  private parseSlice(body: Body, index: number): EventStream & { readonly taken: boolean } {
    slicesParsed.count += 1;
    const start = must(body.cuts[index], 'body.cuts[index]');
    const end = body.cuts[index + 1] ?? body.end;
    let events: Event[];
    try {
      events = parseEvents(this.text.slice(start, end), this.options);
    } catch {
      return this.refuse();
    }
    const [doc, map] = events;
    const last = events.length;
    if (
      doc?.type !== EVENT_ID.DOCUMENT ||
      doc.directives.length > 0 ||
      doc.explicitStart ||
      map?.type !== EVENT_ID.MAPPING ||
      map.style !== COLLECTION_STYLE.BLOCK ||
      map.anchorStart !== -1 ||
      map.tagStart !== -1 ||
      map.start !== body.indent ||
      last < 4 ||
      must(events[last - 1], 'events[last - 1]').type !== EVENT_ID.POP ||
      must(events[last - 2], 'events[last - 2]').type !== EVENT_ID.POP
    ) {
      return this.refuse();
    }
    const from = index === 0 ? 1 : 2;
    const to = last - 2;
    const at = (offset: number) => offset + start;
    for (let i = from; i < to; i++) move(must(events[i], 'events[i]'), at);
    return arrayStream(events, from, to);
  }
}
