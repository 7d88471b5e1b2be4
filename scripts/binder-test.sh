#!/usr/bin/env bash
# Builds the Binder image from the Dockerfile, without Docker, and tests the notebooks in it as a
# Binder user meets them:
#
# 1. A Debian 12 root made by debootstrap (the Dockerfile's FROM debian:bookworm-slim) in
#    build/binder/root, then the Dockerfile's steps replayed in it with chroot
#    (scripts/binder/dockerfile.py: ARG, ENV, USER, WORKDIR, COPY, RUN as Docker runs them), each
#    step timed.
# 2. The image's CMD (JupyterLab, from the venv the image installed) started in it as its user in
#    its WORKDIR, on 127.0.0.1 with a random token, with ../shared/data bound read-only beside
#    the repository (where the notebooks' datasets are looked for; the image has no network to
#    download them from here).
# 3. scripts/browser/lab.py in headless Chromium against it: every notebook of the image opened in
#    place, untrusted, its figures shown and saved byte for byte; those with explorers run with
#    Run All, which must finish with no button pressed, on the modules and build cache the image
#    compiled.
#
# Usage: scripts/binder-test.sh [--reuse]  (root: debootstrap, chroot and mount need it)
#   --reuse   test the image built last time instead of building it again
#
# Builds the image in $SGFORMER_BINDER_ROOT (default /var/tmp/sgformer-binder/root, outside the
# repository, whose ./... it would join; rebuilt each time, some 3 GB) and writes build/binder/:
# debootstrap.log, build.log, lab.log, screenshots/.
# Installs what is missing with apt-get: debootstrap, chromium, chromium-driver, python3-selenium.
# Needs deb.debian.org ($SGFORMER_DEBIAN_MIRROR), the Go module proxy and PyPI, as Binder does;
# where the machine's network needs its own CA bundle ($SSL_CERT_FILE), the build is given it.
# Every wait is bounded (the lab part by SGFORMER_BROWSER_TIMEOUT, default 900 s).
set -euo pipefail
cd "$(dirname "$0")/.."

readonly base=docker.io/library/debian:bookworm-slim suite=bookworm
mirror="${SGFORMER_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
out=build/binder
root="${SGFORMER_BINDER_ROOT:-/var/tmp/sgformer-binder/root}"
py=/usr/bin/python3 # Debian's python, which has selenium

say() { printf '[binder-test] %s\n' "$*"; }
die() {
	printf '[binder-test] error: %s\n' "$*" >&2
	exit 1
}
source scripts/lib/apt.sh

reuse=false
for arg in "$@"; do
	case "$arg" in
	--reuse) reuse=true ;;
	-h | --help)
		sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	*) die "unknown argument $arg (see --help)" ;;
	esac
done
[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, chroot and mount); run it as root or with sudo"
grep -qx "FROM $base" Dockerfile || die "the Dockerfile is not FROM $base, which this test builds with debootstrap $suite"

packages=()
command -v debootstrap >/dev/null 2>&1 || packages+=(debootstrap)
[ -x /usr/bin/chromium ] || packages+=(chromium)
[ -x /usr/bin/chromedriver ] || packages+=(chromium-driver)
"$py" -c 'import selenium' >/dev/null 2>&1 || packages+=(python3-selenium)
apt_install "${packages[@]}"

# unmount_all unmounts whatever a stopped run left mounted in the root.
unmount_all() {
	local m
	for m in $(findmnt -rn -o TARGET | grep "^$root/" | sort -r || true); do
		umount -l "$m" || true
	done
}
source scripts/lib/server.sh
server=""
cleanup() {
	local status=$?
	stop_server
	unmount_all
	if [ "$status" -ne 0 ] && [ -f "$out/lab.log" ]; then
		say "the end of JupyterLab's log ($out/lab.log):" >&2
		tail -n 25 "$out/lab.log" | sed 's/^/    /' >&2
	fi
	exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

began=$SECONDS
mkdir -p "$out" "$(dirname "$root")"
unmount_all
rm -rf "$out/screenshots"
build_seconds=0
if $reuse; then
	[ -f "$root/.dockerfile.json" ] || die "--reuse: no image built in $root"
	say "the image built last time, in $root"
else
	rm -rf "$root"
	say "debootstrap $suite (minbase) from $mirror"
	t0=$SECONDS
	debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$out/debootstrap.log" 2>&1 ||
		die "debootstrap failed (log: $out/debootstrap.log)"
	say "  done in $((SECONDS - t0)) s"

	trust=()
	[ -z "${SSL_CERT_FILE:-}" ] || trust=(--trust "$SSL_CERT_FILE")
	say "the Dockerfile's steps (log: $out/build.log)"
	t0=$SECONDS
	"$py" scripts/binder/dockerfile.py build --root "$root" --base "$base" "${trust[@]}" Dockerfile >"$out/build.log" 2>&1 || {
		tail -n 30 "$out/build.log" | sed 's/^/    /' >&2
		die "building the image failed (above; log: $out/build.log)"
	}
	grep '^\[dockerfile\]' "$out/build.log" | sed 's/^/    /'
	build_seconds=$((SECONDS - t0))
	say "  image built in $build_seconds s ($(du -sh "$root" | cut -f1))"
fi

eval "$("$py" -c '
import json, shlex, sys
i = json.load(open(sys.argv[1]))
print("home=" + shlex.quote(i["env"]["HOME"]), "workdir=" + shlex.quote(i["workdir"]))' "$root/.dockerfile.json")"
binds=()
if [ -d ../shared/data ]; then
	binds=(--mount "$(cd ../shared/data && pwd):$home/shared/data:ro")
fi
token=$("$py" -c 'import secrets; print(secrets.token_hex(24))')
port=$(free_port)
say "the image's JupyterLab on 127.0.0.1:$port, in $workdir"
start_server "$out/lab.log" "$py" scripts/binder/dockerfile.py run --root "$root" "${binds[@]}" -- \
	--ip=127.0.0.1 --port="$port" --port-retries=0 --ServerApp.token="$token"
wait_http "http://127.0.0.1:$port/api/status?token=$token" 60 "JupyterLab" "$out/lab.log"

committed=()
run=()
for path in "$root$workdir"/notebooks/*.ipynb; do
	nb=$(basename "$path" .ipynb)
	committed+=("$nb")
	if grep -q 'kernelext.Explore' "$path"; then
		run+=("$nb")
	fi
done
[ ${#committed[@]} -gt 0 ] || die "no notebooks in the image's $workdir/notebooks"
status=0
timeout --kill-after=10 "${SGFORMER_BROWSER_TIMEOUT:-900}" "$py" scripts/browser/lab.py \
	--url "http://127.0.0.1:$port" --token "$token" --root "$root$workdir" --committed-dir notebooks --run-dir notebooks \
	--out "$out/screenshots" --committed "${committed[@]}" --run-all "${run[@]}" || status=$?
[ "$status" -ne 124 ] && [ "$status" -ne 137 ] || die "the JupyterLab test ran past ${SGFORMER_BROWSER_TIMEOUT:-900} s and was stopped"
[ "$status" -eq 0 ] || die "the JupyterLab test in the image failed (above; screenshots in $out/screenshots)"
say "passed in $((SECONDS - began)) s (image built in $build_seconds s): ${committed[*]} opened as committed, ${run[*]} run with Run All, in the image's JupyterLab"
