import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createIO, decideColor } from '../../../src/cli/io.js';
import { createPlanView } from '../../../src/render/plan-view.js';
import { change, plan } from '../../helpers/plan.js';

/** A stream that keeps what is written, claiming to be a terminal or not. */
function sink(isTTY: boolean): Writable & { isTTY: boolean; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  return Object.assign(stream, { isTTY, text: () => chunks.join('') });
}

const KEY = `29841$${'c767b250a9f4e7d1'.repeat(4)}`;

/**
 * The output boundary every command writes through: the last line of defence for text no view
 * escaped or redacted itself (error messages, diagnostics, help).
 */
describe('createIO output boundary', () => {
  it('redacts the key, its fragments and encodings on stdout and stderr', () => {
    const stdout = sink(false);
    const stderr = sink(false);
    const io = createIO({ env: { EDGEFORM_API_KEY: `${KEY}\n` }, stdout, stderr });
    io.out(`token ${KEY.slice(0, 16)}… and ${Buffer.from(`APIKey ${KEY}`).toString('base64')}`);
    io.err(`Error: 401: ${KEY.replace('$', '&#36;')}`);
    expect(stdout.text()).toBe('token [REDACTED]… and [REDACTED]\n');
    expect(stderr.text()).toBe('Error: 401: [REDACTED]\n');
  });

  it("redacts values given to protect (a stack's sensitive values) from then on, with the key", () => {
    const stdout = sink(false);
    const io = createIO({ env: { EDGEFORM_API_KEY: KEY }, stdout, stderr: sink(false) });
    const secret = 'wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY99';
    io.out(`before: ${secret}`);
    io.protect([secret, '']);
    io.out(`after: ${secret} and ${encodeURIComponent(secret)} and ${KEY}`);
    expect(stdout.text()).toBe(`before: ${secret}\nafter: [REDACTED] and [REDACTED] and [REDACTED]\n`);
  });

  it('escapes control and bidi characters; without colour every ESC, with colour all but colour sequences', () => {
    const text = '\u001b[1mbold\u001b[22m \u001b]0;owned\u0007 \u009b2J \u202e\tend';
    const plain = sink(true);
    createIO({ env: { NO_COLOR: '1' }, stdout: plain, stderr: sink(false) }).out(text);
    expect(plain.text()).toBe('\\u001b[1mbold\\u001b[22m \\u001b]0;owned\\u0007 \\u009b2J \\u202e\tend\n');
    const tty = sink(true);
    createIO({ env: {}, stdout: tty, stderr: sink(false) }).out(text);
    expect(tty.text()).toBe('\u001b[1mbold\u001b[22m \\u001b]0;owned\\u0007 \\u009b2J \\u202e\tend\n');
  });

  it('keeps JSON output valid and equal', () => {
    const stdout = sink(false);
    const value = { tag: 'a\u009b31m\u202e\u2066b', list: ['\u007f'] };
    createIO({ env: {}, stdout, stderr: sink(false) }).out(JSON.stringify(value, null, 2));
    expect(stdout.text()).not.toMatch(/[\u007f-\u009f\u202e\u2066]/);
    expect(JSON.parse(stdout.text())).toEqual(value);
  });
});

describe('decideColor, the one place edgeform decides colour', () => {
  const tty = { isTTY: true };

  it('colours a terminal when nothing says otherwise', () => {
    expect(decideColor({ argv: ['plan', 'stack.yaml'], env: {}, stdout: tty })).toBe(true);
    expect(decideColor({ argv: ['plan', 'stack.yaml'], env: { NO_COLOR: '' }, stdout: tty })).toBe(true);
  });

  it('never colours with --no-color or --color=false, with NO_COLOR set, or off a terminal', () => {
    expect(decideColor({ argv: ['plan', 'stack.yaml', '--no-color'], env: {}, stdout: tty })).toBe(false);
    expect(decideColor({ argv: ['plan', '--color=false', 'stack.yaml'], env: {}, stdout: tty })).toBe(false);
    expect(decideColor({ argv: ['plan', 'stack.yaml'], env: { NO_COLOR: '1' }, stdout: tty })).toBe(false);
    expect(decideColor({ argv: ['plan', 'stack.yaml'], env: {}, stdout: { isTTY: false } })).toBe(false);
    expect(decideColor({ argv: ['plan', 'stack.yaml'], env: {}, stdout: {} })).toBe(false);
  });

  it('colours when forced by --color or FORCE_COLOR, even off a terminal (CI logs that render colour)', () => {
    const pipe = { isTTY: false };
    expect(decideColor({ argv: ['plan', 'stack.yaml', '--color'], env: {}, stdout: pipe })).toBe(true);
    expect(decideColor({ argv: ['plan', '--color=true', 'stack.yaml'], env: { NO_COLOR: '1' }, stdout: pipe })).toBe(true);
    expect(decideColor({ argv: ['plan', 'stack.yaml'], env: { FORCE_COLOR: '1' }, stdout: pipe })).toBe(true);
    expect(decideColor({ argv: ['plan', 'stack.yaml'], env: { FORCE_COLOR: '3', NO_COLOR: '1' }, stdout: pipe })).toBe(true);
  });

  it('lets the flag given last win, a flag win over the environment, and FORCE_COLOR=0 turn colour off', () => {
    expect(decideColor({ argv: ['plan', '--color', 'stack.yaml', '--no-color'], env: {}, stdout: tty })).toBe(false);
    expect(decideColor({ argv: ['plan', '--no-color', 'stack.yaml', '--color'], env: {}, stdout: { isTTY: false } })).toBe(true);
    expect(decideColor({ argv: ['plan', 'stack.yaml', '--no-color'], env: { FORCE_COLOR: '1' }, stdout: tty })).toBe(false);
    expect(decideColor({ argv: ['plan', 'stack.yaml'], env: { FORCE_COLOR: '0' }, stdout: tty })).toBe(false);
    expect(decideColor({ argv: ['plan', 'stack.yaml'], env: { FORCE_COLOR: 'false' }, stdout: tty })).toBe(false);
    expect(decideColor({ argv: ['plan', 'stack.yaml', '--', '--color'], env: {}, stdout: { isTTY: false } })).toBe(false);
  });

  it('is what the output boundary tells the views', () => {
    expect(createIO({ env: {}, stdout: sink(true), stderr: sink(false), argv: ['plan', 'x'] }).color).toBe(true);
    expect(createIO({ env: {}, stdout: sink(true), stderr: sink(false), argv: ['plan', 'x', '--no-color'] }).color).toBe(false);
  });
});

describe('the JSON plan written to a slow pipe', () => {
  it('waits for the reader: what stdout buffers stays bounded however large the plan is (a pipe is asynchronous in Node)', async () => {
    // A pipe that takes 1 KiB at a time, each acknowledged only on a later turn of the event loop.
    let written = 0;
    const stdout = new Writable({
      highWaterMark: 1024,
      write(chunk: Buffer, _encoding, done) {
        written += chunk.length;
        setImmediate(done);
      },
    });
    // What the pipe holds that the reader has not taken, measured after every write.
    let most = 0;
    const write = stdout.write.bind(stdout) as (chunk: string) => boolean;
    stdout.write = ((chunk: string) => {
      const ok = write(chunk);
      most = Math.max(most, stdout.writableLength);
      return ok;
    }) as typeof stdout.write;
    const io = createIO({ env: {}, stdout, stderr: new Writable({ write: (_c, _e, done) => done() }) });
    const changes = Array.from({ length: 6000 }, (_, i) =>
      change({ address: `dns_rrset.example.com/h${i}.example.com./A`, action: 'create', after: { zone: 'example.com', ttl: 300 } }),
    );
    await createPlanView('json', io, { stackLabel: 'big.yaml' }).plan(plan(changes), new Map());
    await new Promise((resolve) => stdout.end(resolve));
    expect(written).toBeGreaterThan(1_200_000);
    // Never more than one chunk of the document (about 64 KiB of whole lines) waiting behind the reader, not the whole plan.
    expect(most).toBeLessThan(2 * 64 * 1024);
  });
});
