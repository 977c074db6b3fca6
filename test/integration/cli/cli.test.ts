import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { VERSION } from '../../../src/version.js';
import { RESOURCE_TYPES } from '../../../src/kinds/registry.js';

describe('edgeform CLI', () => {
  it('rejects an unknown flag with exit 1, no stack trace', async () => {
    const result = await runCliInProcess(['--frobnicate']);
    expect(result.code).toBe(1);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('asks for a command when none is given', async () => {
    const result = await runCliInProcess([]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('edgeform --help');
  });
});

describe('edgeform CLI usage errors', () => {
  it('names an unknown flag even when it swallowed the PATH argument', async () => {
    for (const args of [
      ['plan', '--bogus', 'stack.yaml'],
      ['plan', 'stack.yaml', '--bogus'],
      ['validate', '--bogus=1', 'stack.yaml'],
    ]) {
      const result = await runCliInProcess(args);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('unknown flag --bogus');
    }
  });

  it('names an unknown command and suggests the nearest one', async () => {
    const unknown = await runCliInProcess(['bogus']);
    expect(unknown.stderr).toContain(
      'unknown command "bogus"; the commands are validate, plan, apply, drift, purge, stacks, report, cost, import, fmt, show, schema, version, emulator',
    );
    const typo = await runCliInProcess(['plna', 'stack.yaml']);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain('unknown command "plna". Did you mean plan?');
  });

  it('suggests only a close command, and lists the commands for a word like none of them', async () => {
    const far = await runCliInProcess(['xyz']);
    expect(far.code).toBe(1);
    expect(far.stderr).not.toContain('Did you mean');
    expect(far.stderr).toContain('unknown command "xyz"; the commands are validate, plan, apply');
    const close = await runCliInProcess(['aply', 'stack.yaml']);
    expect(close.stderr).toContain('unknown command "aply". Did you mean apply?');
  });

  it('says what a missing PATH is', async () => {
    const result = await runCliInProcess(['plan', '--no-color']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('missing PATH: give a stack file or a directory of *.yaml files');
  });
});

describe('edgeform CLI: flags a newcomer mistypes', () => {
  it('suggests the nearest flag for a misspelt long flag', async () => {
    const result = await runCliInProcess(['plan', 'stack.yaml', '--paralelism', '3']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('unknown flag --paralelism (did you mean --parallelism?)');
    const apply = await runCliInProcess(['apply', 'stack.yaml', '--auto-aprove']);
    expect(apply.stderr).toContain('unknown flag --auto-aprove (did you mean --auto-approve?)');
    const far = await runCliInProcess(['plan', 'stack.yaml', '--frobnicate']);
    expect(far.stderr).toContain('unknown flag --frobnicate\n');
  });

  it("hints at two dashes for Terraform's single-dash flags (-out=x, -target=..., -auto-approve)", async () => {
    for (const [args, hint] of [
      [['plan', 'stack.yaml', '-out=plan.json'], '-out=plan.json -> --out=plan.json'],
      [['plan', '-target=cloud_instance.web_vm', 'stack.yaml'], '-target=cloud_instance.web_vm -> --target=cloud_instance.web_vm'],
      [['apply', 'stack.yaml', '-auto-approve'], '-auto-approve -> --auto-approve'],
    ] as const) {
      const result = await runCliInProcess([...args]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`Error: edgeform's long flags take two dashes, unlike Terraform's: use ${hint}`);
      expect(result.stderr).not.toContain('Unknown arguments');
    }
  });

  it('names what to do instead for a Terraform flag edgeform does not have, never a two-dash flag that does not exist', async () => {
    for (const [args, hint] of [
      [['apply', 'stack.yaml', '-input=false'], '-input=false: edgeform never prompts without a terminal (apply then needs --auto-approve or a saved plan); leave it out'],
      [['plan', 'stack.yaml', '-json'], '-json -> --format json'],
      [['plan', 'stack.yaml', '-var-file=prod.tfvars'], '-var-file=prod.tfvars: edgeform has no variables; a stack reads the environment with ${env:NAME}'],
      [['plan', 'stack.yaml', '-refresh=false'], '-refresh=false: edgeform has no --refresh flag'],
      [['apply', 'stack.yaml', '-lock=false'], '-lock=false -> --lock=false'],
      [['plan', 'stack.yaml', '-no-color'], '-no-color -> --no-color'],
    ] as const) {
      const result = await runCliInProcess([...args]);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr).toContain(hint);
    }
  });

  it('refuses plan --out without a value as a usage error (exit 1), before anything is read', async () => {
    const result = await runCliInProcess(['plan', 'examples/quickstart.yaml', '--out']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Error: --out needs a value (--out VALUE or --out=VALUE)');
    expect(result.stdout).toBe('');
  });

  it('refuses --parallelism that is not a number as a usage error (exit 1), never NaN', async () => {
    const result = await runCliInProcess(['plan', 'examples/quickstart.yaml', '--parallelism', 'abc']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Error: --parallelism must be a whole number from 1 to 100, got a value that is not a number');
    expect(result.stderr).not.toContain('NaN');
  });
});

describe('edgeform CLI: colour', () => {
  const ANSI = /\u001b\[/;
  it('colours a piped run with --color or FORCE_COLOR, and not with --no-color', async () => {
    const output = async (args: string[], env: Record<string, string | undefined> = {}) => {
      const result = await runCliInProcess(['validate', 'test/fixtures/invalid/bad-enum', ...args], { env });
      expect(result.code).toBe(1);
      return result.stdout + result.stderr;
    };
    expect(await output(['--color'])).toMatch(ANSI);
    expect(await output([], { NO_COLOR: undefined, FORCE_COLOR: '1' })).toMatch(ANSI);
    expect(await output(['--no-color'], { FORCE_COLOR: '1' })).not.toMatch(ANSI);
    expect(await output([])).not.toMatch(ANSI);
  });
});

describe('edgeform completion', () => {
  it('prints a bash completion script that asks edgeform for the words (test/e2e/completion.test.ts runs it)', async () => {
    const result = await runCliInProcess(['completion', 'bash']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('###-begin-edgeform-completions-###');
    expect(result.stdout).toContain('"$executable" --get-yargs-completions');
    expect(result.stdout).toMatch(/complete .* edgeform/);
  });

  it('prints a zsh script when asked by name, and refuses a shell it has no script for', async () => {
    const zsh = await runCliInProcess(['completion', 'zsh']);
    expect(zsh.code).toBe(0);
    expect(zsh.stdout).toMatch(/^#compdef edgeform/);
    expect(zsh.stdout).toContain('compdef _edgeform_yargs_completions edgeform');
    const fish = await runCliInProcess(['completion', 'fish']);
    expect(fish.code).toBe(1);
    expect(fish.stderr).toContain('bash or zsh, not "fish"');
  });

  it('completes command names and the flags of a command', async () => {
    const commands = await runCliInProcess(['--get-yargs-completions', 'edgeform', '']);
    expect(commands.stdout.split('\n')).toEqual(expect.arrayContaining(['validate', 'plan', 'apply', 'drift', 'purge', 'completion']));
    const flags = await runCliInProcess(['--get-yargs-completions', 'edgeform', 'plan', '--']);
    expect(flags.stdout.split('\n')).toEqual(expect.arrayContaining(['--format', '--out', '--target', '--parallelism']));
    // A word being typed with one dash is the shell asking, not a Terraform-style flag to refuse.
    const typing = await runCliInProcess(['--get-yargs-completions', 'edgeform', 'plan', '-ta']);
    expect(typing).toMatchObject({ code: 0, stderr: '' });
  });
});

describe("edgeform completes what kubectl would: the kinds and the stack's addresses", () => {
  const complete = async (...words: string[]) => {
    const result = await runCliInProcess(['--get-yargs-completions', 'edgeform', ...words]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    return result.stdout.split('\n').filter((line) => line !== '');
  };

  it('completes --target with the addresses of the stack the line names, resources and checks, by prefix', async () => {
    expect(await complete('plan', 'examples/quickstart.yaml', '--target', '')).toHaveLength(9);
    expect(await complete('plan', 'examples/quickstart.yaml', '--target', 'streaming_')).toEqual([
      'streaming_player.old_player',
      'streaming_video_subtitles.subtitles_ready',
      'streaming_ai_tasks.no_failed_transcriptions',
    ]);
    expect(await complete('apply', 'examples/cdn.yaml', '--auto-approve', '--target', 'cdn_ru')).toEqual(['cdn_rule.images', 'cdn_rule.api']);
    // zsh keeps --target=PREFIX one word; bash splits it at "=".
    expect(await complete('plan', 'examples/cdn.yaml', '--target=cdn_ru')).toEqual(['--target=cdn_rule.images', '--target=cdn_rule.api']);
    expect(await complete('plan', 'examples/cdn.yaml', '--target', '=', 'cdn_ru')).toEqual(['cdn_rule.images', 'cdn_rule.api']);
    expect(await complete('plan', 'examples/cdn.yaml', '--target', '=')).toEqual(['cdn_origin_group.origins', 'cdn_resource.site', 'cdn_rule.images', 'cdn_rule.api']);
  });

  it('completes --resend-sensitive and --replace with resources only, from a directory stack too, after other flags', async () => {
    expect(await complete('plan', '--format', 'json', 'examples/multi-file', '--resend-sensitive', '')).toEqual([
      'cloud_instance.web_vm',
      'cloud_k8s_cluster.cluster',
      'cloud_floating_ip.web_ip',
    ]);
    expect(await complete('apply', 'examples/quickstart.yaml', '--replace', 'streaming_')).toEqual(['streaming_player.old_player']);
  });

  it('completes nothing for an address when the line names no readable stack', async () => {
    expect(await complete('plan', '--target', '')).toEqual([]);
    expect(await complete('plan', 'no/such.yaml', '--target', '')).toEqual([]);
  });

  it('completes import with the resource kinds, and leaves flags and flag values to yargs', async () => {
    expect(await complete('import', '')).toEqual([...RESOURCE_TYPES]);
    expect(await complete('import', 'dns_')).toEqual(['dns_zone', 'dns_rrset']);
    expect(await complete('import', '--all', 'cdn_o')).toEqual(['cdn_origin_group']);
    expect(await complete('import', 'dns_zone', '--')).toEqual(expect.arrayContaining(['--name', '--records-file']));
    expect(await complete('import', '--project-id', '')).not.toContain('dns_zone');
  });
});

describe('edgeform version', () => {
  it('prints the version and the Node.js it runs on (from source the build commit is unknown, and not shown)', async () => {
    const text = await runCliInProcess(['version']);
    expect(text.code).toBe(0);
    expect(text.stdout).toBe(`edgeform ${VERSION} (node ${process.version})\n`);
  });

  it('--format json gives version, commit, node and platform', async () => {
    const json = await runCliInProcess(['version', '--format', 'json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ version: VERSION, commit: null, node: process.version, platform: `${process.platform}-${process.arch}` });
  });
});
