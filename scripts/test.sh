#!/usr/bin/env bash
# The project's test command (docs/testing.md; .ci/run calls exactly this): formatting, vet,
# every test, with the datasets read from ../shared/data beside the project root, the main job
# against its committed results, and the notebooks.
#
#   scripts/test.sh          all of it (what CI runs)
#   scripts/test.sh quick    gofmt, vet and `go test -short ./...`: every package, without the
#                            tests on the real datasets, on XLA and the minutes-long ones
#
# Each stage is timed; the times are printed at the end and, with SGFORMER_TEST_TIMES=FILE,
# written to FILE as records (internal/record; docs/testing.md renders those of results/testing/).
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-all}"
case "$mode" in
all | quick) ;;
*)
  sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
  ;;
esac
source scripts/lib/record.sh
header=$(record_header "scripts/test.sh $mode") # the load before the stages
began=$SECONDS
times=()
# stage NAME COMMAND…: runs COMMAND and records how many seconds it took.
stage() {
  local name="$1" start=$SECONDS
  shift
  "$@"
  times+=("$name $((SECONDS - start))")
}
# report prints the stages' times and, with SGFORMER_TEST_TIMES, writes them as records: one
# per stage, then the total.
report() {
  local line
  printf '%s\n' "${times[@]}" "total $((SECONDS - began))" | awk '{ printf "%-12s %6d s\n", $1, $2 }'
  [ -n "${SGFORMER_TEST_TIMES:-}" ] || return 0
  {
    echo "$header"
    echo "# setup: $(go env GOVERSION)"
    echo "== $mode"
    for line in "${times[@]}" "total $((SECONDS - began))"; do
      printf '{"stage":"%s","seconds":%s}\n' "${line% *}" "${line##* }"
    done
  } | record_write "$SGFORMER_TEST_TIMES"
}

gofmt_check() {
  local unformatted
  unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
  if [ -n "$unformatted" ]; then
    echo "gofmt would change:" >&2
    echo "$unformatted" >&2
    return 1
  fi
}
stage gofmt gofmt_check
stage vet go vet ./...
if [ "$mode" = quick ]; then
  stage go-test-short go test -short -count=1 ./...
  report
  exit 0
fi
# XLA's CPU plugin (pinned, 63 MB from PyPI, kept in the user cache): the default backend, and
# the parity tests' (SGFORMER_REQUIRE_XLA=1 makes them fail rather than skip without it).
# SGFORMER_NO_XLA=1 tests without it, on a machine that cannot reach PyPI.
install_xla() {
  go run ./cmd/sgformer install-xla >/dev/null || {
    echo "scripts/test.sh: could not install XLA's CPU plugin (above); SGFORMER_NO_XLA=1 tests without it" >&2
    return 1
  }
}
if [ "${SGFORMER_NO_XLA:-0}" = 1 ]; then
  echo "XLA CPU plugin not installed (SGFORMER_NO_XLA=1): its tests skip, the default backend is go"
else
  stage install-xla install_xla
  export SGFORMER_REQUIRE_XLA=1
fi
stage go-test go test -count=1 -timeout 30m ./...
# The main job of the README, whose results must equal the committed results/synthetic
# (scripts/main-job.sh, about 5 minutes). SGFORMER_SKIP_MAIN_JOB=1 skips it for a quick local run.
if [ "${SGFORMER_SKIP_MAIN_JOB:-0}" = 1 ]; then
  echo "main job skipped (SGFORMER_SKIP_MAIN_JOB=1)"
else
  stage main-job ./scripts/main-job.sh
fi
# The GoNB notebooks, executed headless and checked cell by cell (scripts/notebooks.sh; HTML in
# build/notebooks/html). SGFORMER_SKIP_NOTEBOOKS=1 skips them for a quick local run.
if [ "${SGFORMER_SKIP_NOTEBOOKS:-0}" = 1 ]; then
  echo "notebooks skipped (SGFORMER_SKIP_NOTEBOOKS=1)"
else
  stage notebooks ./scripts/notebooks.sh
fi
# The interactive notebooks (01-03) in a real browser: Jupyter on 127.0.0.1 and headless Chromium
# work their widgets and check the figures and counts (scripts/browser-test.sh, a few minutes).
# SGFORMER_SKIP_BROWSER=1 (or SGFORMER_SKIP_NOTEBOOKS=1) skips it.
if [ "${SGFORMER_SKIP_NOTEBOOKS:-0}" = 1 ] || [ "${SGFORMER_SKIP_BROWSER:-0}" = 1 ]; then
  echo "browser test skipped"
else
  stage browser ./scripts/browser-test.sh
fi
# The Slurm templates against a real Slurm: a one-node cluster on 127.0.0.1, an ablation grid as
# a job array with a task requeued mid-cell (scripts/slurm-test.sh; root; a few minutes).
# SGFORMER_SKIP_SLURM=1 skips it.
if [ "${SGFORMER_SKIP_SLURM:-0}" = 1 ]; then
  echo "Slurm test skipped"
else
  stage slurm ./scripts/slurm-test.sh
fi
# The Binder image: the Dockerfile built without Docker in a debootstrap root and the notebooks
# run in its own JupyterLab (scripts/binder-test.sh; root; some 10 minutes, most of it the
# image's downloads and compilation). SGFORMER_SKIP_BINDER=1 (or SGFORMER_SKIP_NOTEBOOKS=1)
# skips it.
if [ "${SGFORMER_SKIP_NOTEBOOKS:-0}" = 1 ] || [ "${SGFORMER_SKIP_BINDER:-0}" = 1 ]; then
  echo "Binder image test skipped"
else
  stage binder ./scripts/binder-test.sh
fi
report
