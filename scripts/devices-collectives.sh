#!/usr/bin/env bash
# The communication of a training step split among 2 of XLA's CPU devices (docs/devices.md):
# XLA dumps the partitioned program of TestDevicesFirstStep/subgraphormer/2 (the synthetic task,
# Subgraphormer, a batch of 8 graphs) after its optimisations, and this counts the collectives
# XLA's partitioner inserted and the bytes of their results, largest first, and (the part totals)
# what the step model takes. Writes OUT's records (default
# results/benchmarks/devices-collectives.jsonl; internal/record).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/benchmarks/devices-collectives.jsonl}
source scripts/lib/record.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
XLA_FLAGS="--xla_dump_to=$tmp/hlo --xla_dump_hlo_as_text" SGFORMER_REQUIRE_XLA=1 \
	go test -count=1 -run 'TestDevicesFirstStep/subgraphormer/2$' ./sgformer/training >"$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
program=$(grep -l 'num_partitions=2' "$tmp"/hlo/*firstStep*after_optimizations.txt | head -1)
{
	record_header scripts/devices-collectives.sh
	echo "# setup: the first training step of TestDevicesFirstStep/subgraphormer/2, partitioned over 2 devices"
	echo "== collectives"
	grep -E ' (all-gather|all-reduce|all-to-all|collective-permute|reduce-scatter)(-start)?\(' "$program" | python3 -c '
import json, re, sys
size = {"f32": 4, "s32": 4, "u32": 4, "f64": 8, "s64": 8, "u64": 8, "pred": 1}
count, total, ops = {}, {}, []
for line in sys.stdin:
    op = re.search(r" (all-gather|all-reduce|all-to-all|collective-permute|reduce-scatter)", line).group(1)
    result = line.split("=", 1)[1].split(" " + op)[0]
    b = 0
    for dtype, dims in re.findall(r"(f32|s32|u32|f64|s64|u64|pred)\[([0-9,]*)\]", result):
        n = 1
        for d in filter(None, dims.split(",")):
            n *= int(d)
        b += n * size[dtype]
    count[op] = count.get(op, 0) + 1
    total[op] = total.get(op, 0) + b
    ops.append((b, op, result.strip()))
for op in sorted(count):  # each kind: how many, the bytes of their results
    print(json.dumps({"op": op, "ops": count[op], "bytes": total[op]}))
for b, op, result in sorted(ops, reverse=True)[:6]:  # the largest: bytes, the dimensions of a single result
    dims = re.fullmatch(r"\w+\[([0-9,]*)\]\{[0-9,]*\}", result)
    print(json.dumps({"largest": op, "bytes": b, "result": result, "dims": [int(d) for d in dims.group(1).split(",") if d] if dims else []}))
# What the step model of docs/devices.md takes: every collective, the bytes of the all-gathers
# and all-reduces, and the product nodes and width of the largest all-gather (f32[nodes,width]).
nodes, width = map(int, re.fullmatch(r"f32\[(\d+),(\d+)\]\{[0-9,]*\}", max((b, r) for b, op, r in ops if op == "all-gather")[1]).groups())
print("== totals")
print(json.dumps({"collectives": len(ops), "all-gather bytes": total["all-gather"], "all-reduce bytes": total["all-reduce"],
                  "largest all-gather nodes": nodes, "largest all-gather width": width}))
'
} >"$tmp/out"
record_write "$out" <"$tmp/out"
cat "$tmp/out"
