import { UsageError } from '../errors.js';

/** The shells `edgeform completion` writes a script for. */
export type CompletionShell = 'bash' | 'zsh';

/**
 * The shell `edgeform completion [SHELL]` writes for: the one named, else zsh when the
 * environment says zsh (SHELL or ZSH_NAME, as yargs decides), else bash. Another name is a
 * usage error naming the two.
 */
export function chooseCompletionShell(named: string | undefined, env: NodeJS.ProcessEnv): CompletionShell {
  if (named === undefined) return env.SHELL?.includes('zsh') || env.ZSH_NAME?.includes('zsh') ? 'zsh' : 'bash';
  if (named === 'bash' || named === 'zsh') return named;
  throw new UsageError(`edgeform completion writes a script for bash or zsh, not "${named}"`);
}

/**
 * The completion script for a shell. It asks edgeform itself for the words (yargs'
 * --get-yargs-completions), through the executable the user runs: the path typed
 * (`node_modules/.bin/edgeform`), `edgeform` on PATH, or, for `npx edgeform` and for an
 * `edgeform` not on PATH, the nearest node_modules/.bin/edgeform from the current directory up,
 * as npx finds it. So one script serves a global install and a devDependency install, and it
 * names no path of the machine that printed it. `npx` is completed only when the shell has no
 * completion of its own for it, and only after `npx edgeform`.
 */
export function writeCompletionScript(shell: CompletionShell): string {
  return shell === 'zsh' ? ZSH_SCRIPT : BASH_SCRIPT;
}

const BASH_SCRIPT = `###-begin-edgeform-completions-###
#
# edgeform command completion script for bash
#
# Installation: edgeform completion >> ~/.bashrc   (a devDependency install:
#               npx edgeform completion >> ~/.bashrc), then open a new shell.
# Completes "edgeform ...", "path/to/edgeform ..." and "npx edgeform ..." (edgeform on PATH
# or in node_modules/.bin of the current directory or one above it).
#
_edgeform_executable()
{
    local typed="$1" dir
    if [[ "$typed" == */* ]]; then printf '%s\n' "$typed"; return 0; fi
    if [[ "$typed" != npx ]] && type -P edgeform > /dev/null 2>&1; then printf 'edgeform\n'; return 0; fi
    dir="$PWD"
    while [[ -n "$dir" ]]; do
        if [[ -x "$dir/node_modules/.bin/edgeform" ]]; then printf '%s\n' "$dir/node_modules/.bin/edgeform"; return 0; fi
        dir="\${dir%/*}"
    done
    type -P edgeform
}

_edgeform_yargs_completions()
{
    local cur_word executable type_list
    local -a args
    cur_word="\${COMP_WORDS[COMP_CWORD]}"
    # bash splits "--target=ADDR" at "=": completing right after it completes the value.
    [[ "$cur_word" == "=" ]] && cur_word=""
    COMPREPLY=()
    if [[ "\${COMP_WORDS[0]##*/}" == npx ]]; then
        if [[ $COMP_CWORD -eq 1 ]]; then
            _edgeform_executable npx > /dev/null && mapfile -t COMPREPLY < <(compgen -W edgeform -- "$cur_word")
            return 0
        fi
        [[ "\${COMP_WORDS[1]}" == edgeform ]] || return 0
        args=("\${COMP_WORDS[@]:1}")
    else
        args=("\${COMP_WORDS[@]}")
    fi
    executable="$(_edgeform_executable "\${COMP_WORDS[0]}")" || return 0

    # ask yargs to generate completions.
    # see https://stackoverflow.com/a/40944195/7080036 for the spaces-handling awk
    mapfile -t type_list < <("$executable" --get-yargs-completions "\${args[@]}" 2> /dev/null)
    mapfile -t COMPREPLY < <(compgen -W "$( printf '%q ' "\${type_list[@]}" )" -- "$cur_word" |
        awk '/ / { print "\\""$0"\\"" } /^[^ ]+$/ { print $0 }')
    return 0
}
complete -o bashdefault -o default -F _edgeform_yargs_completions edgeform
complete -p npx > /dev/null 2>&1 || complete -o bashdefault -o default -F _edgeform_yargs_completions npx
###-end-edgeform-completions-###
`;

const ZSH_SCRIPT = `#compdef edgeform
###-begin-edgeform-completions-###
#
# edgeform command completion script for zsh
#
# Installation: edgeform completion zsh >> ~/.zshrc   (a devDependency install:
#               npx edgeform completion zsh >> ~/.zshrc), then open a new shell.
# Completes "edgeform ...", "path/to/edgeform ..." and "npx edgeform ..." (edgeform on PATH
# or in node_modules/.bin of the current directory or one above it).
#
_edgeform_executable()
{
  local typed="$1" dir
  if [[ "$typed" == */* ]]; then print -r -- "$typed"; return 0; fi
  if [[ "$typed" != npx ]] && whence -p edgeform > /dev/null 2>&1; then print -r -- edgeform; return 0; fi
  dir="$PWD"
  while [[ -n "$dir" ]]; do
    if [[ -x "$dir/node_modules/.bin/edgeform" ]]; then print -r -- "$dir/node_modules/.bin/edgeform"; return 0; fi
    dir="\${dir%/*}"
  done
  whence -p edgeform
}

_edgeform_yargs_completions()
{
  local reply executable si=$IFS
  local -a args
  local cword=$((CURRENT-1))
  args=("\${(@)words}")
  if [[ "\${words[1]:t}" == npx ]]; then
    if (( CURRENT == 2 )); then
      _edgeform_executable npx > /dev/null && compadd edgeform
      return
    fi
    if [[ "\${words[2]}" != edgeform ]]; then _default; return; fi
    args=("\${(@)words[2,-1]}")
    cword=$((CURRENT-2))
  fi
  executable="$(_edgeform_executable "\${words[1]}")" || { _default; return; }
  IFS=$'\\n' reply=($(ZSH_NAME=zsh COMP_CWORD="$cword" "$executable" --get-yargs-completions "\${args[@]}" 2> /dev/null))
  IFS=$si
  if [[ \${#reply} -gt 0 ]]; then
    _describe 'values' reply
  else
    _default
  fi
}
if [[ "\${zsh_eval_context[-1]}" == "loadautofunc" ]]; then
  _edgeform_yargs_completions "$@"
else
  compdef _edgeform_yargs_completions edgeform
  (( \${+_comps[npx]} )) || compdef _edgeform_yargs_completions npx
fi
###-end-edgeform-completions-###
`;
