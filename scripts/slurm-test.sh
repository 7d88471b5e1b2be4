#!/usr/bin/env bash
# Tests scripts/slurm/ against a real Slurm: Debian's slurm-wlm and munge, started as a one-node
# cluster on 127.0.0.1 with the machine's cores (as root, in about a minute), then
#
# 1. an 8-cell grid of a small recipe (the synthetic task, pure-Go backend) submitted as a job
#    array with scripts/slurm/ablate.sbatch, its size from `sgformer ablate --list`;
# 2. one task requeued (`scontrol requeue`) in the middle of its cell, once it has saved a
#    checkpoint: Slurm kills it and runs it again, and the cell resumes from its checkpoint;
# 3. checks: every cell trained each epoch exactly once (its metrics.jsonl numbers its epochs
#    1..E once each), the requeued cell's first epoch ran once (its log, appended across both
#    runs, says so) and its second run resumed, and the grid's table equals that of the same
#    grid trained by `sgformer ablate` on this machine, outside Slurm;
# 4. scripts/slurm/train-seeds.sbatch: two seeds as an array, each a finished run.
#
# Usage: scripts/slurm-test.sh            (root: the daemons run as root)
#
# Writes build/slurm/ (the daemons' configuration, logs and state, the runs); stops the daemons
# it started, by PID, whatever happens. Installs slurm-wlm and munge with apt-get if missing.
# Every wait is bounded (SGFORMER_SLURM_TIMEOUT, default 600 s).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out="$root/build/slurm"
timeout_s="${SGFORMER_SLURM_TIMEOUT:-600}"

say() { printf '[slurm-test] %s\n' "$*"; }
die() {
	printf '[slurm-test] error: %s\n' "$*" >&2
	exit 1
}
source scripts/lib/apt.sh

[ "$(id -u)" -eq 0 ] || die "needs root (the Slurm and munge daemons run as root here)"
if ! command -v slurmctld >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1; then
	apt_install slurm-wlm munge
fi

pids=()
cleanup() {
	local status=$?
	for pidfile in "$out/slurmd.pid" "$out/slurmctld.pid" "$out/munge/munged.pid"; do
		if [ -f "$pidfile" ]; then
			pid=$(cat "$pidfile")
			kill "$pid" 2>/dev/null || true
			for _ in $(seq 50); do
				kill -0 "$pid" 2>/dev/null || break
				sleep 0.1
			done
			kill -9 "$pid" 2>/dev/null || true
		fi
	done
	if [ "$status" -ne 0 ]; then
		for log in "$out/slurmctld.log" "$out/slurmd.log"; do
			[ -f "$log" ] && { say "the end of $log:" >&2; tail -n 15 "$log" | sed 's/^/    /' >&2; }
		done
	fi
	exit "$status"
}

rm -rf "$out"
mkdir -p "$out/state" "$out/spool" "$out/munge"
chmod 711 "$out/munge"
trap cleanup EXIT
trap 'exit 130' INT TERM

# wait_for WHAT COMMAND...: runs COMMAND every second until it succeeds, at most timeout_s.
wait_for() {
	local what="$1" t0=$SECONDS
	shift
	until "$@"; do
		[ $((SECONDS - t0)) -lt "$timeout_s" ] || die "waited $timeout_s s for $what"
		sleep 1
	done
}

say "building sgformer"
go build -o "$out/sgformer" ./cmd/sgformer
export SGFORMER="$out/sgformer"

source scripts/lib/server.sh # free_port
cpus=$(nproc)
dd if=/dev/urandom of="$out/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$out/munge/munge.key"
cat >"$out/slurm.conf" <<EOF
ClusterName=sgformertest
SlurmctldHost=localhost(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$out/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$out/state
SlurmdSpoolDir=$out/spool
SlurmctldPidFile=$out/slurmctld.pid
SlurmdPidFile=$out/slurmd.pid
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmctldLogFile=$out/slurmctld.log
SlurmdLogFile=$out/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobRequeue=1
KillWait=5
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$out/slurm.conf"
t0=$SECONDS
munged -f --socket="$out/munge/munge.socket" --key-file="$out/munge/munge.key" --log-file="$out/munge/munged.log" \
	--pid-file="$out/munge/munged.pid" --seed-file="$out/munge/munged.seed"
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF" -N localhost
idle() { sinfo -h -o %t 2>/dev/null | grep -qx idle; }
wait_for "the node to be idle" idle
say "Slurm $(slurmctld -V | cut -d' ' -f2) up in $((SECONDS - t0)) s: one node, $cpus CPUs ($SLURM_CONF)"

# done_job JOB: every task of the array JOB has left the queue.
done_job() { [ -z "$(squeue -h -j "$1" 2>/dev/null)" ]; }

grid=(--dataset synthetic --synthetic-graphs 160 --layers 2 --hidden 24 --batch-size 8 --epochs 12
	--ratios 1,0.5 --pe-k 0,4 --seeds 0,1 --backend go)
cells=$("$SGFORMER" ablate "${grid[@]}" --out "$out/grid" --list | wc -l)
[ "$cells" -eq 8 ] || die "ablate --list gives $cells cells, want 8"
cd "$out"
job=$(sbatch --parsable --cpus-per-task=1 --array=0-$((cells - 1)) "$root/scripts/slurm/ablate.sbatch" "${grid[@]}" --out "$out/grid")
say "submitted the grid as array job $job ($cells tasks)"

# Requeue task 0 once its cell has a checkpoint and some epochs, before it ends.
cell0=$(sed -n 1p <("$SGFORMER" ablate "${grid[@]}" --out "$out/grid" --list) | python3 -c 'import json, sys; print(json.load(sys.stdin)["run"])')
midway() { [ -f "$cell0/metrics.jsonl" ] && [ "$(wc -l <"$cell0/metrics.jsonl")" -ge 3 ] && [ "$(wc -l <"$cell0/metrics.jsonl")" -lt 10 ]; }
wait_for "task 0 to be in the middle of its cell" midway
epochs_before=$(wc -l <"$cell0/metrics.jsonl")
scontrol requeue "${job}_0"
say "requeued task 0 after $epochs_before of its 12 epochs"
wait_for "the array to finish" done_job "$job"

"$SGFORMER" ablate "${grid[@]}" --out "$out/grid" --list >"$out/cells.jsonl"
python3 - "$out/cells.jsonl" <<'PY'
import json, sys
bad = []
for line in open(sys.argv[1]):
    c = json.loads(line)
    epochs = [json.loads(r)["epoch"] for r in open(c["run"] + "/metrics.jsonl")]
    if c["state"] != "done" or epochs != list(range(1, 13)):
        bad.append(f'cell {c["index"]}: state {c["state"]}, epochs {epochs}')
if bad:
    sys.exit("[slurm-test] error: " + "; ".join(bad))
PY
log0="$out/slurm-${job}_0.out"
[ "$(grep -c '^epoch 1/12 ' "$log0")" -eq 1 ] || die "task 0 ran its first epoch $(grep -c '^epoch 1/12 ' "$log0") times ($log0)"
[ "$(grep -c '^== cell 0 ' "$log0")" -eq 2 ] || die "task 0 did not run twice ($log0)"
say "every cell trained epochs 1-12 exactly once; task 0 ran twice, its first epoch once: the second run resumed"

"$SGFORMER" table "$out/grid" >"$out/table-slurm.md"
"$SGFORMER" ablate "${grid[@]}" --out "$out/single" >"$out/table-single.md" 2>"$out/single.log"
# The tables name their directory nowhere; the runs' seconds are not in them.
diff -u "$out/table-single.md" "$out/table-slurm.md" || die "the grid's table under Slurm differs from the same grid run on one machine (above)"
say "the table equals the same grid's trained by one sgformer ablate outside Slurm"

seeds=$(sbatch --parsable --cpus-per-task=1 --array=0-1 "$root/scripts/slurm/train-seeds.sbatch" "$out/seeds" \
	--dataset synthetic --synthetic-graphs 40 --layers 1 --hidden 12 --epochs 2 --backend go)
wait_for "the seeds to finish" done_job "$seeds"
for s in 0 1; do
	python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); sys.exit(0 if s["epochs"] == 2 and s["seed"] == int(sys.argv[2]) else 1)' \
		"$out/seeds/seed-$s/summary.json" "$s" || die "seed $s: no finished run in $out/seeds/seed-$s"
done
say "train-seeds.sbatch: seeds 0 and 1 trained as an array"
say "passed"
