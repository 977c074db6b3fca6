#!/usr/bin/env bash
# The install step of the GitHub Action (action.yml): builds edgeform from the action's own
# checkout (the tag the workflow names, so the version is exactly the one pinned) and puts
# `edgeform` on PATH for the steps after it. A second use of the action in the same job finds
# it built and only sets PATH again.
#
# Also runs outside Actions (scripts/check-install.sh): GITHUB_PATH, GITHUB_ENV and
# GITHUB_OUTPUT are written only when set.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

if ! node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)' 2>/dev/null; then
  echo "::error::edgeform needs Node.js 20.19 or newer (found $(node --version 2>/dev/null || echo none)); add actions/setup-node before this action"
  exit 1
fi

if [ ! -f "$root/dist/.action-built" ]; then
  echo "Building edgeform in $root"
  # --ignore-scripts: no dependency runs code at install; the build below is the only script.
  (cd "$root" && npm ci --ignore-scripts --no-audit --no-fund && npm run build)
  : > "$root/dist/.action-built"
fi

if [ -n "${GITHUB_PATH:-}" ]; then echo "$root/action/bin" >> "$GITHUB_PATH"; fi
if [ -n "${GITHUB_ENV:-}" ]; then echo "EDGEFORM_CI_SCRIPTS=$root/examples/ci/scripts" >> "$GITHUB_ENV"; fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  echo "scripts-dir=$root/examples/ci/scripts" >> "$GITHUB_OUTPUT"
  echo "version=$("$root/action/bin/edgeform" --version)" >> "$GITHUB_OUTPUT"
fi
echo "edgeform $("$root/action/bin/edgeform" --version) is on PATH ($root/action/bin)"
