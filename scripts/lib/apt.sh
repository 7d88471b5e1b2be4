# apt_install PACKAGE... installs Debian packages (those the caller found missing; none: nothing
# to do) as root, or through sudo where it needs no password; else dies, naming them and the
# command that installs them. Source it; the caller defines say MESSAGE and die MESSAGE (prints
# and exits 1).
apt_install() {
	(($# > 0)) || return 0
	local sudo=()
	if [ "$(id -u)" -ne 0 ]; then
		if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
			sudo=(sudo -n)
		else
			die "missing $*: install them as root (apt-get install $*)"
		fi
	fi
	say "apt-get install $*"
	local t0=$SECONDS
	"${sudo[@]}" apt-get update -qq
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "$@" >/dev/null
	say "  installed in $((SECONDS - t0)) s"
}
