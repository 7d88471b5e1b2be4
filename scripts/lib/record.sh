# Shell helpers of the benchmark scripts that write records (internal/record: JSON lines, one
# measurement a line, with the command, commit, date, machine and load that measured it).
# Source it from the project root.

# record_header COMMAND [COMMIT] prints the header internal/cmd/record reads: the command, the
# commit measured (default: HEAD, and whether the code has uncommitted changes: any outside
# results/, which a measurement writes and which does not change what it measures), the date, the
# machine and the load before the measurements. A script prints "# setup: …" after it where
# versions or settings decide its figures, then its parts ("== PART") and their measurements.
record_header() {
	echo "# command: $1"
	echo "# commit: ${2:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- . ':!results' 2>/dev/null || echo ' with uncommitted changes')}"
	echo "# date: $(date -u +%Y-%m-%dT%H:%MZ)"
	echo "# machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(($(awk '/^MemTotal/ {print $2}' /proc/meminfo) >> 20)) GiB"
	echo "# load: $(cut -d' ' -f1-3 /proc/loadavg)"
}

# record_write OUT turns the script's output on stdin into OUT's records (written atomically,
# nothing written if the output holds no measurement or lacks a header line).
record_write() {
	mkdir -p "$(dirname "$1")"
	go run ./internal/cmd/record -o "$1"
}
