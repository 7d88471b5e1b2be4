#!/usr/bin/env bash
# Installs the Go toolchain the project is built with, pinned, into DIR (default /usr/local/go):
# the Go module proxy's golang.org/toolchain module (the release that `go` itself downloads for
# GOTOOLCHAIN), checked against the SHA-256 below. The Dockerfile runs it; a machine that has
# Go 1.26 already needs nothing from here.
#
# Usage: scripts/install-go.sh [DIR]       ($GOPROXY's first URL is used if set; default
#                                           https://proxy.golang.org)
set -euo pipefail

readonly GO_VERSION=1.26.8
declare -A SHA256=(
	[amd64]=30c2b1bf7dcc88d3eb0a1364e47ddd9128edb3110a30e8a0ef61cd5856b31de7
	[arm64]=02b36b6787b3ac767668f630e2998df45a3b1f9ffee08d1bf3ef6487cd658d99
)
dir="${1:-/usr/local/go}"

say() { printf '[install-go] %s\n' "$*"; }
die() {
	printf '[install-go] error: %s\n' "$*" >&2
	exit 1
}

case "$(uname -m)" in
x86_64) arch=amd64 ;;
aarch64 | arm64) arch=arm64 ;;
*) die "no pinned Go $GO_VERSION for $(uname -m) (amd64 and arm64 only)" ;;
esac
if [ -x "$dir/bin/go" ] && [ "$("$dir/bin/go" env GOVERSION)" = "go$GO_VERSION" ]; then
	say "go$GO_VERSION in $dir (present)"
	exit 0
fi
[ ! -e "$dir" ] || die "$dir exists and is not Go $GO_VERSION: remove it first"
proxy="${GOPROXY:-https://proxy.golang.org}"
proxy="${proxy%%[,|]*}"
[ "$proxy" != direct ] && [ "$proxy" != off ] || proxy=https://proxy.golang.org
module="v0.0.1-go$GO_VERSION.linux-$arch"
url="$proxy/golang.org/toolchain/@v/$module.zip"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
say "downloading $url"
curl --fail --silent --show-error --location --connect-timeout 30 --max-time 900 --retry 2 -o "$tmp/go.zip" "$url" ||
	die "could not download $url (no network? set GOPROXY to a reachable proxy, or install Go $GO_VERSION yourself)"
echo "${SHA256[$arch]}  $tmp/go.zip" | sha256sum --check --quiet ||
	die "$url does not have the pinned SHA-256 ${SHA256[$arch]}"
unzip -q "$tmp/go.zip" -d "$tmp/x"
mkdir -p "$(dirname "$dir")"
mv "$tmp/x/golang.org/toolchain@$module" "$dir"
chmod -R a+rX "$dir"
say "$("$dir/bin/go" version) in $dir"
