# Writes a miniature of ZINC's canonical download (benchmarking-gnns' molecules/*.pickle and the
# subset's *.index files, as PyG's ZINC keeps them in raw/) with PyTorch itself, from molecules of
# the text export in ../shared/data/zinc12k. Run from this folder with /usr/bin/python3 and
# Debian's python3-torch 1.13; the files are committed, so the tests need no Python.
#   train: export graphs 0..5,             index 5,0,3  (pickle protocol 3, int64 tensors)
#   val:   export graphs 10000..10003,     index 2,1    (protocol 4, uint8 bonds, float64 target)
#   test:  export graphs 11000..11002,     index 0,2    (protocol 2)
import gzip
import pickle
import torch

root = "../../../../shared/data/zinc12k/"

def rows(name):
    with gzip.open(root + name, "rt") as f:
        return [line.split() for line in f if line.strip()]

atoms, bonds, labels = {}, {}, {}
for g, v, a in rows("ZINC_Nodes.txt.gz"):
    atoms.setdefault(int(g), {})[int(v)] = int(a)
for g, u, v, b in rows("ZINC_Edges.txt.gz"):
    bonds.setdefault(int(g), []).append((int(u), int(v), int(b)))
for g, y in rows("ZINC_Labels.txt.gz"):
    labels[int(g)] = float(y)

def molecule(g, bond_dtype, y_dtype):
    n = len(atoms[g])
    adj = torch.zeros(n, n, dtype=bond_dtype)
    for u, v, b in bonds.get(g, []):
        adj[u, v] = adj[v, u] = b
    return {
        "num_atom": n,
        "atom_type": torch.tensor([atoms[g][v] for v in range(n)], dtype=torch.int64),
        "bond_type": adj,
        "logP_SA_cycle_normalized": torch.tensor([labels[g]], dtype=y_dtype),
    }

for split, graphs, index, proto, bond_dtype, y_dtype in [
    ("train", range(0, 6), [5, 0, 3], 3, torch.int64, torch.float32),
    ("val", range(10000, 10004), [2, 1], 4, torch.uint8, torch.float64),
    ("test", range(11000, 11003), [0, 2], 2, torch.int64, torch.float32),
]:
    with open(f"raw/{split}.pickle", "wb") as f:
        pickle.dump([molecule(g, bond_dtype, y_dtype) for g in graphs], f, protocol=proto)
    with open(f"raw/{split}.index", "w") as f:
        f.write(",".join(map(str, index)) + "\n")
