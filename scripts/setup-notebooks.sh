#!/usr/bin/env bash
# Installs what running the GoNB notebooks in notebooks/ needs, and only what is missing:
#
#   system  (root, apt-get; skipped when already present): a C compiler (the project uses cgo)
#           and Python's venv module (Debian's python3-venv)
#   user    Jupyter, pinned (scripts/jupyter-requirements.txt: JupyterLab 4.6.6, Notebook 7.6.5,
#           nbconvert), in a venv of its own, $SGFORMER_JUPYTER (default
#           ~/.cache/sgformer/jupyter); goimports, GoNB and optionally gopls (go install into
#           $(go env GOPATH)/bin); and the GoNB kernel registered with Jupyter (gonb --install,
#           into $JUPYTER_DATA_DIR where set: scripts/notebooks.sh keeps its own there)
#
# CI runs it (through scripts/notebooks.sh) on a bare Debian 12 machine with Go; the Dockerfile
# runs the same script, the system part as root and the user part as the notebook user.
# A second run finds everything installed and takes a few seconds. Then scripts/jupyter-lab.sh
# starts JupyterLab on notebooks/.
#
# Usage: scripts/setup-notebooks.sh [--only system|user] [--interactive]
#   --only system|user  run one part only (the Dockerfile runs them as different users)
#   --interactive       also install gopls (completion and help in JupyterLab) and register the
#                       kernel with GoNB's HTML error reports instead of plain-text ones (each
#                       run registers the kernel anew, with or without them)
#
# Go and Python 3 (python3, or $SGFORMER_PYTHON) must be on PATH. pip needs PyPI, unless the
# venv is already there.
set -euo pipefail

readonly GONB_VERSION=v0.11.1      # the only version the Go module proxy serves
readonly GOIMPORTS_VERSION=v0.52.0 # golang.org/x/tools
readonly GOPLS_VERSION=v0.23.0     # v0.24 needs Go 1.27
root="$(cd "$(dirname "$0")/.." && pwd)"
readonly requirements="$root/scripts/jupyter-requirements.txt"
venv="${SGFORMER_JUPYTER:-${XDG_CACHE_HOME:-$HOME/.cache}/sgformer/jupyter}"
python="${SGFORMER_PYTHON:-python3}"

say() { printf '[setup-notebooks] %s\n' "$*"; }
die() {
	printf '[setup-notebooks] error: %s\n' "$*" >&2
	exit 1
}
source "$root/scripts/lib/apt.sh"

only=""
interactive=false
while [ $# -gt 0 ]; do
	case "$1" in
	--only)
		[ $# -ge 2 ] || die "--only needs system or user"
		only="$2"
		shift 2
		;;
	--interactive)
		interactive=true
		shift
		;;
	-h | --help)
		sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	*) die "unknown argument $1 (see --help)" ;;
	esac
done
case "$only" in
"" | system | user) ;;
*) die "--only takes system or user, not $only" ;;
esac


# setup_system installs the Debian packages that are missing.
setup_system() {
	local packages=()
	if ! command -v cc >/dev/null 2>&1; then
		packages+=(gcc libc6-dev)
	else
		say "C compiler: $(command -v cc) (present)"
	fi
	if "$python" -c 'import ensurepip, venv' >/dev/null 2>&1; then
		say "$("$python" --version) with venv (present)"
	else
		packages+=(python3-venv)
	fi
	apt_install "${packages[@]}"
}

# module_version prints the version of the main module a Go binary was built from, or nothing.
module_version() {
	[ -x "$1" ] || return 0
	go version -m "$1" 2>/dev/null | awk '$1 == "mod" { print $3; exit }'
}

# go_tool NAME PACKAGE VERSION [via-cache] installs PACKAGE@VERSION into GOBIN unless the
# binary there already has that version. With via-cache (PACKAGE must then be its module's
# root), the module is first downloaded into the module cache and installed from there: the
# proxy refuses GoNB's version list, which a plain `go install` asks for.
go_tool() {
	local name=$1 package=$2 version=$3 via_cache=${4:-}
	local have
	have=$(module_version "$gobin/$name")
	if [ "$have" = "$version" ]; then
		say "$name $version (present)"
		return
	fi
	say "go install $package@$version${have:+ (replacing $have)}"
	local t0=$SECONDS
	(
		# Outside any module, so that the project's go.mod and go.sum are never touched.
		cd "${TMPDIR:-/tmp}"
		if [ -n "$via_cache" ]; then
			go mod download "$package@$version"
			GOPROXY="file://$(go env GOMODCACHE)/cache/download,$(go env GOPROXY)" \
				go install "$package@$version"
		else
			go install "$package@$version"
		fi
	)
	say "  installed in $((SECONDS - t0)) s"
}

# setup_jupyter makes the venv of pinned Jupyter, unless it holds these requirements already.
setup_jupyter() {
	if cmp -s "$requirements" "$venv/sgformer-requirements.txt" && [ -x "$venv/bin/jupyter-lab" ]; then
		say "Jupyter in $venv (present: $("$venv/bin/jupyter-lab" --version))"
		return
	fi
	command -v "$python" >/dev/null 2>&1 || die "$python is not on PATH (Python 3 is needed for Jupyter; set SGFORMER_PYTHON)"
	say "Jupyter (scripts/jupyter-requirements.txt) into a venv: $venv"
	local t0=$SECONDS
	rm -rf "$venv"
	"$python" -m venv "$venv" || die "$python -m venv $venv failed (on Debian: apt-get install python3-venv)"
	"$venv/bin/pip" install --quiet --disable-pip-version-check --no-input --timeout 60 -r "$requirements" ||
		die "pip could not install scripts/jupyter-requirements.txt (PyPI unreachable?)"
	cp "$requirements" "$venv/sgformer-requirements.txt"
	say "  installed in $((SECONDS - t0)) s: JupyterLab $("$venv/bin/jupyter-lab" --version)"
}

setup_user() {
	command -v go >/dev/null 2>&1 || die "go is not on PATH (Go 1.26 or later is needed)"
	setup_jupyter
	say "$(go version)"
	gobin=$(go env GOBIN)
	if [ -z "$gobin" ]; then
		gobin="$(go env GOPATH)/bin"
	fi
	local caller_path=$PATH
	export PATH="$gobin:$PATH"

	go_tool goimports golang.org/x/tools/cmd/goimports "$GOIMPORTS_VERSION"
	go_tool gonb github.com/janpfeifer/gonb "$GONB_VERSION" via-cache
	local flags=(--install --force_deps)
	if $interactive; then
		go_tool gopls golang.org/x/tools/gopls "$GOPLS_VERSION"
	else
		flags+=(--raw_error) # plain-text compile errors, readable in executed notebooks
		say "gopls: skipped (optional headless, --interactive installs it; GoNB's warning about it is harmless)"
	fi
	say "gonb ${flags[*]}${JUPYTER_DATA_DIR:+ (JUPYTER_DATA_DIR=$JUPYTER_DATA_DIR)}"
	gonb "${flags[@]}" 2>&1 | sed 's/^/  /'
	case ":$caller_path:" in
	*":$gobin:"*) ;;
	*) say "note: add $gobin to PATH (Jupyter's GoNB kernel runs go and goimports from it)" ;;
	esac
	say "start JupyterLab on the notebooks with scripts/jupyter-lab.sh"
}

if [ "$only" != user ]; then
	setup_system
fi
if [ "$only" != system ]; then
	setup_user
fi
say "done in $SECONDS s"
