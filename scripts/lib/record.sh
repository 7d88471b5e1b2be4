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

# record_epochs METRICS prints the epochs of a run's metrics.jsonl (sgformer train's, or
# scripts/authors-train.py's): each epoch's seconds, the programs each compiled where the run
# counts them, and its steady epoch: the median seconds of the epochs that compiled none (no
# line where none did or the run does not count them).
record_epochs() {
	awk '
		function field(name, m) {
			if (!match($0, "\"" name "\": *[0-9.eE+-]+")) return ""
			m = substr($0, RSTART, RLENGTH)
			sub(/^[^:]*: */, "", m)
			return m
		}
		{ secs[n + 0] = field("seconds"); programs[n + 0] = field("programs"); n++ }
		END {
			for (i = 0; i < n; i++) {
				s = s " " secs[i]
				if (programs[i] != "") p = p " " programs[i]
				if (programs[i] == "0") quiet[q++] = secs[i]
			}
			print "epoch seconds:" s
			if (p != "") print "epoch programs:" p
			if (q == 0) exit
			for (i = 1; i < q; i++) # insertion sort: a run has at most some hundred epochs
				for (j = i; j > 0 && quiet[j - 1] + 0 > quiet[j] + 0; j--) { t = quiet[j]; quiet[j] = quiet[j - 1]; quiet[j - 1] = t }
			# the middle epoch as written, or the mean of the middle two, every digit kept
			if (q % 2) print "steady epoch seconds: " quiet[(q - 1) / 2]
			else printf "steady epoch seconds: %.17g\n", (quiet[q / 2 - 1] + quiet[q / 2]) / 2
		}' "$1"
}

# record_programs PREFIX DUMP prints the matrix-product arithmetic and the census of instructions
# (internal/cmd/hloflops) of the two programs the ZINC benchmarks compile, from their XLA dump
# DUMP, as the parts "PREFIX training step" (the trainer's program) and "PREFIX inference pass"
# (benchInference's); a program missing or compiled more than once fails.
record_programs() {
	go run ./internal/cmd/hloflops "$2" >"$2/modules.jsonl" || return
	echo "== $1 training step"
	record_module '^{"module":"Trainer' "$2/modules.jsonl" || return
	echo "== $1 inference pass"
	record_module '^{"module":"[^"]*benchInference' "$2/modules.jsonl"
}

# record_module PATTERN MODULES prints the one line of MODULES that PATTERN matches, and fails
# on none or several: a part is one program, whose counts the documents' templates take as the
# first record of each and sum over the records of its opcodes.
record_module() {
	local n
	n=$(grep -c -- "$1" "$2" || true)
	if [ "$n" != 1 ]; then
		echo "record_programs: ${n:-no} modules of $2 match $1, want exactly one" >&2
		return 1
	fi
	grep -- "$1" "$2"
}
