#!/usr/bin/env python3
"""Runs a command and reports the peak memory of its process tree: scripts/notebooks.sh runs
each notebook under it (nbconvert, the GoNB kernel, `go build` of each cell and the cell's
program all count, as they do in a Binder container's 2 GB).

    peak-rss.py OUT.json -- COMMAND [ARG...]

Every 0.1 s it adds up the resident set of the command and all its descendants (Linux /proc;
pages shared between them count once per process, so the sum bounds the tree's memory from
above) and writes {"seconds": wall time, "peak_rss_mib": the largest sum} to OUT.json. It exits
with the command's status.
"""
import json
import os
import subprocess
import sys
import time


def children():
    """Maps each process id to its children's, from /proc."""
    kids = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        kids.setdefault(ppid, []).append(int(entry))
    return kids


def tree_rss(root):
    """The summed resident set of root and its descendants, in bytes."""
    kids, total, todo = children(), 0, [root]
    page = os.sysconf("SC_PAGE_SIZE")
    while todo:
        pid = todo.pop()
        try:
            with open(f"/proc/{pid}/statm") as f:
                total += int(f.read().split()[1]) * page
        except OSError:
            pass
        todo.extend(kids.get(pid, []))
    return total


def main():
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        sys.exit(__doc__)
    out, command = sys.argv[1], sys.argv[3:]
    start = time.monotonic()
    proc = subprocess.Popen(command)
    peak = 0
    while proc.poll() is None:
        peak = max(peak, tree_rss(proc.pid))
        time.sleep(0.1)
    with open(out, "w") as f:
        json.dump({"seconds": round(time.monotonic() - start, 1), "peak_rss_mib": round(peak / 2**20)}, f)
        f.write("\n")
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
