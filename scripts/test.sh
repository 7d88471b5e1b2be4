#!/usr/bin/env bash
# The project's test command (README "Tests"; .ci/run calls exactly this): formatting, vet,
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
