import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadStack } from '../../../src/config/load-stack.js';
import { writeStackFiles } from '../../helpers/stack-files.js';

const VTT = 'WEBVTT\n\n1\n00:00:01.000 --> 00:00:04.000\nHallo\n';
const stackYaml = (vttFile: string) => `version: 1
resources:
  german:
    type: streaming_video_subtitle
    video_id: 9876
    language: ger
    vtt_file: ${vttFile}
`;

async function load(files: Record<string, string>, stack = 'stack.yaml') {
  const dir = writeStackFiles(files);
  return { dir, ...(await loadStack(join(dir, stack), {})) };
}

describe('file attributes (vtt_file): read by the loader into the attribute they feed', () => {
  it('puts the file text into vtt, keeping vtt_file as written', async () => {
    const { stack, diagnostics } = await load({ 'stack.yaml': stackYaml('subtitles/ger.vtt'), 'subtitles/ger.vtt': VTT });
    expect(diagnostics).toEqual([]);
    expect(stack!.resources[0]!.attributes).toMatchObject({ vtt_file: 'subtitles/ger.vtt', vtt: VTT });
  });

  it('reads the path relative to the stack file that names it, in a directory stack too', async () => {
    const { stack, diagnostics } = await load({ 'stack/subs.yaml': stackYaml('ger.vtt'), 'stack/ger.vtt': VTT }, 'stack');
    expect(diagnostics).toEqual([]);
    expect(stack!.resources[0]!.attributes).toMatchObject({ vtt: VTT });
  });

  it('makes the digest cover the file content: another text, another digest', async () => {
    const a = await load({ 'stack.yaml': stackYaml('ger.vtt'), 'ger.vtt': VTT });
    const b = await load({ 'stack.yaml': stackYaml('ger.vtt'), 'ger.vtt': VTT.replace('Hallo', 'Servus') });
    const c = await load({ 'stack.yaml': stackYaml('ger.vtt'), 'ger.vtt': VTT });
    expect(a.stack!.digest).not.toBe(b.stack!.digest);
    expect(a.stack!.digest).toBe(c.stack!.digest);
  });

  it('refuses a missing file at the vtt_file value', async () => {
    const { stack, diagnostics } = await load({ 'stack.yaml': stackYaml('ger.vtt') });
    expect(stack).toBeUndefined();
    expect(diagnostics).toMatchObject([{ code: 'file-not-found', address: 'streaming_video_subtitle.german', range: { start: { line: 7, column: 15 } } }]);
  });

  it('refuses text that is not WebVTT at the line and column of the file itself', async () => {
    const { dir, diagnostics, files } = await load({ 'stack.yaml': stackYaml('ger.vtt'), 'ger.vtt': 'WEBVTT\n\n00:01.000 --> 00:0x.000\nx\n' });
    expect(diagnostics).toMatchObject([{ code: 'invalid-file', range: { filename: join(dir, 'ger.vtt'), start: { line: 3, column: 15 } } }]);
    expect(diagnostics[0]!.detail).toContain(`Read for vtt_file of streaming_video_subtitle.german (${join(dir, 'stack.yaml')}:7:15)`);
    expect(files.get(join(dir, 'ger.vtt'))).toContain('00:0x.000');
  });

  it.each([
    ['a path that climbs out', '../ger.vtt'],
    ['an absolute path', '/etc/hostname'],
  ])('refuses %s of the stack directory', async (_what, path) => {
    const { diagnostics } = await load({ 'stacks/stack.yaml': stackYaml(path), 'ger.vtt': VTT }, 'stacks/stack.yaml');
    expect(diagnostics).toMatchObject([{ code: 'file-outside-stack', range: { start: { line: 7, column: 15 } } }]);
  });

  it('refuses a symbolic link that leads out of the stack directory', async () => {
    const dir = writeStackFiles({ 'outside.vtt': VTT, 'stacks/stack.yaml': stackYaml('ger.vtt') });
    symlinkSync(join(dir, 'outside.vtt'), join(dir, 'stacks', 'ger.vtt'));
    const { diagnostics } = await loadStack(join(dir, 'stacks', 'stack.yaml'), {});
    expect(diagnostics).toMatchObject([{ code: 'file-outside-stack' }]);
    expect(diagnostics[0]!.summary).toContain('through a symbolic link');
  });

  it('refuses a file that is not UTF-8 text', async () => {
    const dir = writeStackFiles({ 'stack.yaml': stackYaml('ger.vtt') });
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(dir, 'ger.vtt'), Buffer.from([0xff, 0xfe, 0x57, 0x00]));
    const { diagnostics } = await loadStack(join(dir, 'stack.yaml'), {});
    expect(diagnostics).toMatchObject([{ code: 'invalid-file' }]);
    expect(diagnostics[0]!.summary).toContain('is not a UTF-8 text file');
  });

  it('refuses vtt and vtt_file together, and neither on a present subtitle', async () => {
    const both = await load({ 'stack.yaml': `${stackYaml('ger.vtt')}    vtt: "WEBVTT\\n"\n`, 'ger.vtt': VTT });
    expect(both.diagnostics.map((d) => d.summary)).toEqual([expect.stringContaining('vtt_file must not be set together with vtt')]);
    const neither = await load({ 'stack.yaml': stackYaml('ger.vtt').replace('    vtt_file: ger.vtt\n', '') });
    expect(neither.diagnostics.map((d) => d.summary)).toEqual([expect.stringContaining('vtt must be set, or vtt_file')]);
  });
});
