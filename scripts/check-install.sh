#!/usr/bin/env bash
# Checks that edgeform installs the three ways docs/ci.md documents, each in a scratch directory
# with the real npm and registry (so it is not part of `npm test`; .ci/run runs it after):
#
#   1. from a git tag:    npm install git+file://<clone>#<tag>  (what github:OWNER/edgeform#vX does:
#                         npm clones, installs devDependencies, runs `prepare` = the build, packs)
#   2. from a tarball:    npm pack here, npm install <the .tgz> there
#   3. as the GitHub Action: a fresh checkout, action/install.sh (npm ci + build, PATH), then
#                         action/run.mjs planning a stack against the emulator of that install
#
# Each install must give a working `edgeform` (its --version is package.json's, it validates a
# stack), the CI scripts (examples/ci/scripts) and the editor schema (edgeform.schema.json); a
# devDependency install's completion script completes `npx edgeform`. Checks the committed HEAD (clones it), plus,
# for the tarball, the working tree's build. Takes a few minutes; needs the npm registry.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version="$(node -p 'require(process.argv[1]).version' "$root/package.json")"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/edgeform-install-XXXXXX")"
emulator_pid=""
cleanup() {
  if [ -n "$emulator_pid" ]; then kill "$emulator_pid" 2>/dev/null || true; fi
  rm -rf "$scratch"
}
trap cleanup EXIT
export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false

step() { printf '\n== %s\n' "$*"; }
fail() {
  echo "check-install: FAILED: $*" >&2
  exit 1
}

# A stack and a working `edgeform` in $1 (a project directory), run as `npx edgeform`.
check_project() {
  local dir="$1" got completed
  cp "$root/examples/quickstart.yaml" "$dir/quickstart.yaml"
  got="$(cd "$dir" && npx --no-install edgeform --version)" || fail "$dir: npx edgeform --version"
  [ "$got" = "$version" ] || fail "$dir: edgeform --version printed '$got', expected '$version'"
  (cd "$dir" && npx --no-install edgeform validate quickstart.yaml > /dev/null) || fail "$dir: edgeform validate"
  [ -f "$dir/node_modules/edgeform/examples/ci/scripts/upsert-comment.mjs" ] || fail "$dir: the CI scripts are not installed"
  check_schema "$dir/node_modules/edgeform/edgeform.schema.json" "$(cd "$dir" && npx --no-install edgeform schema)" "$dir"
  # The completion script of a devDependency install completes `npx edgeform` with no edgeform on PATH.
  (cd "$dir" && npx --no-install edgeform completion bash > "$dir/completion.bash") || fail "$dir: edgeform completion"
  completed="$(cd "$dir" && bash --norc --noprofile -c 'source ./completion.bash
    COMP_WORDS=(npx edgeform pl); COMP_CWORD=2; _edgeform_yargs_completions npx pl edgeform; printf "%s\n" "${COMPREPLY[@]}"')"
  [ "$completed" = plan ] || fail "$dir: completing 'npx edgeform pl' gave '$completed', expected 'plan'"
  (cd "$dir" && node node_modules/edgeform/examples/ci/scripts/plan-artifact.mjs --platform gitlab --stack stacks/prod.yaml --sha "$(printf 'a%.0s' {1..40})" > /dev/null) ||
    fail "$dir: plan-artifact.mjs did not run"
  echo "ok: edgeform $got runs in $dir"
}

# The editor schema at $1, where docs/stack-file.md says an install has it, equal to $2 (what that
# install's `edgeform schema` prints).
check_schema() {
  [ -f "$1" ] || fail "$3: no $1 (the editor schema stacks name in \$schema=)"
  [ "$(cat "$1")" = "$2" ] || fail "$3: $1 differs from what its edgeform schema prints"
}

new_project() {
  mkdir -p "$1"
  (cd "$1" && npm init -y > /dev/null)
}

step "a clone of HEAD, tagged v0.0.0-check"
git clone -q "$root" "$scratch/repo"
git -C "$scratch/repo" tag v0.0.0-check

step "1. npm install git+file://…#v0.0.0-check (prepare builds it)"
new_project "$scratch/from-git"
start=$SECONDS
(cd "$scratch/from-git" && npm install --save-dev "git+file://$scratch/repo#v0.0.0-check") || fail "npm install from the git tag"
grep -q "\"resolved\": \"git+file://$scratch/repo#$(git -C "$scratch/repo" rev-parse HEAD)\"" "$scratch/from-git/package-lock.json" ||
  fail "the lockfile does not pin the tag's commit"
[ -f "$scratch/from-git/node_modules/edgeform/dist/bin/edgeform.js" ] || fail "the git install has no dist/: prepare did not build"
check_project "$scratch/from-git"
echo "   ($((SECONDS - start)) s)"

step "2. npm pack, then npm install edgeform-$version.tgz"
start=$SECONDS
(cd "$root" && npm pack --silent --pack-destination "$scratch" > /dev/null) || fail "npm pack"
tarball="$scratch/edgeform-$version.tgz"
[ -f "$tarball" ] || fail "npm pack wrote no $tarball"
listing="$(tar tzf "$tarball")"
unexpected="$(grep -Ev '^package/(dist/|examples/ci/scripts/|edgeform\.schema\.json$|CHANGELOG\.md$|package\.json$|README\.md$|LICEN[CS]E)' <<< "$listing" || true)"
[ -z "$unexpected" ] || fail "the tarball holds files it should not: $unexpected"
grep -qx 'package/dist/bin/edgeform.js' <<< "$listing" || fail "the tarball has no dist/bin/edgeform.js"
new_project "$scratch/from-tarball"
(cd "$scratch/from-tarball" && npm install --save-dev "$tarball") || fail "npm install of the tarball"
check_project "$scratch/from-tarball"
echo "   ($((SECONDS - start)) s)"

step "3. the GitHub Action: install.sh in a fresh checkout, then run.mjs against the emulator"
start=$SECONDS
git clone -q "$scratch/repo" "$scratch/action"
export GITHUB_PATH="$scratch/gh-path" GITHUB_ENV="$scratch/gh-env" GITHUB_OUTPUT="$scratch/gh-output"
: > "$GITHUB_PATH"
: > "$GITHUB_ENV"
: > "$GITHUB_OUTPUT"
bash "$scratch/action/action/install.sh" || fail "action/install.sh"
grep -qx "$scratch/action/action/bin" "$GITHUB_PATH" || fail "install.sh did not put action/bin on GITHUB_PATH"
grep -qx "EDGEFORM_CI_SCRIPTS=$scratch/action/examples/ci/scripts" "$GITHUB_ENV" || fail "install.sh did not set EDGEFORM_CI_SCRIPTS"
grep -qx "version=$version" "$GITHUB_OUTPUT" || fail "install.sh did not set the version output"
# A second use of the action in the same job does not build again.
again_start=$SECONDS
bash "$scratch/action/action/install.sh" > /dev/null || fail "action/install.sh, second run"
[ $((SECONDS - again_start)) -lt 10 ] || fail "the second install.sh built again"
PATH="$(head -n1 "$GITHUB_PATH"):$PATH"
[ "$(edgeform --version)" = "$version" ] || fail "edgeform on PATH is not $version"
check_schema "$scratch/action/edgeform.schema.json" "$(edgeform schema)" "the action's checkout"

mkdir -p "$scratch/workspace"
cp "$root/examples/quickstart.yaml" "$scratch/workspace/"
edgeform emulator --port 0 --fixtures "$scratch/action/examples/emulator/fixtures.yaml" > "$scratch/emulator.log" 2>&1 &
emulator_pid=$!
for _ in $(seq 1 100); do
  grep -q '^export EDGEFORM_API_KEY=' "$scratch/emulator.log" && break
  sleep 0.2
done
eval "$(grep '^export EDGEFORM_' "$scratch/emulator.log")" || fail "the emulator did not start: $(cat "$scratch/emulator.log")"
: > "$GITHUB_OUTPUT"
(cd "$scratch/workspace" && INPUT_COMMAND=plan INPUT_STACK=quickstart.yaml INPUT_FORMAT=markdown INPUT_PLAN_FILE=plan.json INPUT_OUTPUT_FILE=plan.md INPUT_ARGS='' \
  NO_COLOR=1 node "$scratch/action/action/run.mjs" > /dev/null) || fail "action/run.mjs plan"
grep -qx 'exit-code=2' "$GITHUB_OUTPUT" || fail "the plan step did not set exit-code=2: $(cat "$GITHUB_OUTPUT")"
grep -qx 'summary={"add":0,"change":4,"destroy":3,"read":2}' "$GITHUB_OUTPUT" || fail "the plan step's summary: $(cat "$GITHUB_OUTPUT")"
[ "$(head -n1 "$scratch/workspace/plan.md")" = '<!-- edgeform:plan stack=quickstart.yaml -->' ] || fail "plan.md does not start with the marker"
kill "$emulator_pid"
emulator_pid=""
echo "ok: the action installed edgeform $version and planned against the emulator"
echo "   ($((SECONDS - start)) s)"

printf '\ncheck-install: edgeform %s installs from a git tag, from a tarball and as the GitHub Action\n' "$version"
