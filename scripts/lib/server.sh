# Shell helpers of the scripts that start servers for a test (browser-test.sh, binder-test.sh,
# slurm-test.sh): a free port, a server in a process group of its own, its wait and its end.
# Source it; the caller defines die MESSAGE (prints and exits 1).

# free_port prints a TCP port of 127.0.0.1 that is free now.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start_server LOG COMMAND... starts COMMAND in a process group of its own (the server, its
# children and theirs), its output in LOG; $server is the group's leader, for stop_server.
start_server() {
	local log="$1"
	shift
	setsid "$@" >"$log" 2>&1 &
	server=$!
}

# wait_http URL SECONDS WHAT LOG waits until URL answers, for at most SECONDS; dies, naming WHAT
# and LOG, when the server exits or does not answer in time.
wait_http() {
	local url="$1" seconds="$2" what="$3" log="$4" i
	for i in $(seq $((2 * seconds))); do
		curl -fsS "$url" >/dev/null 2>&1 && return
		kill -0 "$server" 2>/dev/null || die "$what exited (log: $log)"
		sleep 0.5
	done
	die "$what did not answer within $seconds s (log: $log)"
}

# stop_server terminates the process group of $server, if it runs, and kills what is left
# after 10 s.
stop_server() {
	if [ -n "${server:-}" ] && kill -0 "$server" 2>/dev/null; then
		kill -TERM -- "-$server" 2>/dev/null || true
		for _ in $(seq 50); do
			kill -0 "$server" 2>/dev/null || break
			sleep 0.2
		done
		kill -KILL -- "-$server" 2>/dev/null || true
	fi
	server=""
}
