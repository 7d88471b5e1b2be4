#!/usr/bin/env bash
# The project's test command (docs/testing.md; .ci/run calls exactly this): formatting, vet,
# every test, with the datasets read from ../shared/data beside the project root, the main job
# against its committed results, and the notebooks.
set -euo pipefail
cd "$(dirname "$0")/.."
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:" >&2
  echo "$unformatted" >&2
  exit 1
fi
go vet ./...
# XLA's CPU plugin (pinned, 63 MB from PyPI, kept in the user cache): the default backend, and
# the parity tests' (SGFORMER_REQUIRE_XLA=1 makes them fail rather than skip without it).
# SGFORMER_NO_XLA=1 tests without it, on a machine that cannot reach PyPI.
if [ "${SGFORMER_NO_XLA:-0}" = 1 ]; then
  echo "XLA CPU plugin not installed (SGFORMER_NO_XLA=1): its tests skip, the default backend is go"
else
  go run ./cmd/sgformer install-xla >/dev/null || {
    echo "scripts/test.sh: could not install XLA's CPU plugin (above); SGFORMER_NO_XLA=1 tests without it" >&2
    exit 1
  }
  export SGFORMER_REQUIRE_XLA=1
fi
go test -count=1 -timeout 30m ./...
# The main job of the README, whose results must equal the committed results/synthetic
# (scripts/main-job.sh, about 5 minutes). SGFORMER_SKIP_MAIN_JOB=1 skips it for a quick local run.
if [ "${SGFORMER_SKIP_MAIN_JOB:-0}" = 1 ]; then
  echo "main job skipped (SGFORMER_SKIP_MAIN_JOB=1)"
else
  ./scripts/main-job.sh
fi
# The GoNB notebooks, executed headless and checked cell by cell (scripts/notebooks.sh; HTML in
# build/notebooks/html). SGFORMER_SKIP_NOTEBOOKS=1 skips them for a quick local run.
if [ "${SGFORMER_SKIP_NOTEBOOKS:-0}" = 1 ]; then
  echo "notebooks skipped (SGFORMER_SKIP_NOTEBOOKS=1)"
else
  ./scripts/notebooks.sh
fi
# The interactive notebooks (01-03) in a real browser: Jupyter on 127.0.0.1 and headless Chromium
# work their widgets and check the figures and counts (scripts/browser-test.sh, a few minutes).
# SGFORMER_SKIP_BROWSER=1 (or SGFORMER_SKIP_NOTEBOOKS=1) skips it.
if [ "${SGFORMER_SKIP_NOTEBOOKS:-0}" = 1 ] || [ "${SGFORMER_SKIP_BROWSER:-0}" = 1 ]; then
  echo "browser test skipped"
else
  ./scripts/browser-test.sh
fi
