"""Compares subgraphormer_pyg.py's product-graph PE with `sgformer pe` on ZINC-12k molecules.

    python3 bench/pyg/check_pe.py SGFORMER_BINARY [--data DIR] [--every N] [--k K]

For every N-th molecule and both PE modes (reference, exact) it prints the largest absolute
difference over the n² × k entries, and exits 1 if any exceeds 1e-6.
"""

import argparse
import json
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import subgraphormer_pyg as pyg  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sgformer", help="the sgformer binary")
    ap.add_argument("--data", default="../shared/data/zinc12k")
    ap.add_argument("--every", type=int, default=60)
    ap.add_argument("--k", type=int, default=8)
    args = ap.parse_args()
    graphs = pyg.read_zinc(args.data)[0]
    worst, bad = 0.0, 0
    ids = range(0, len(graphs), args.every)
    for gid in ids:
        n, _, edges = graphs[gid]
        g = json.dumps({"num_nodes": n, "edges": [[u, v] for u, v, _ in edges]})
        for mode in ("reference", "exact"):
            out = subprocess.run([args.sgformer, "pe", "--graph", "-", "--k", str(args.k), "--mode", mode],
                                 input=g, capture_output=True, text=True, check=True).stdout
            diff = float(np.abs(np.array(json.loads(out)["pe"]) - pyg.product_pe(n, edges, args.k, mode).numpy()).max())
            worst = max(worst, diff)
            if diff > 1e-6:
                bad += 1
                print(f"molecule {gid}, {mode}: max difference {diff:.3g}")
    print(f"{len(ids)} molecules × 2 modes, k = {args.k}: largest difference {worst:.3g}, {bad} over 1e-6")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
