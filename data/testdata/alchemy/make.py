# Writes a miniature of Alchemy-12k's download for data's tests (pure Python 3, no packages;
# the files are committed, so the tests need no Python): 8 molecule-like graphs in the TU
# graph-kernel format of alchemy_full.zip, three split index files in the layout of Morris et
# al.'s train_al_10.index / val_al_10.index / test_al_10.index, and expected.json, what reading
# them must give, computed here from the graphs themselves (not from the files):
#   alchemy_full_A.txt                 "u, v": both directions of every bond, 1-based node ids
#                                      over the whole dataset; the bonds of graph 7 come first
#                                      and in no order; one self loop (node 10), which PyG drops
#   alchemy_full_graph_indicator.txt   the graph (1-based) of each node
#   alchemy_full_node_labels.txt       atom labels 1, 2, 3, 5 (4 unused): PyG subtracts the
#                                      smallest, 1, and one-hot encodes 5 values
#   alchemy_full_edge_labels.txt       bond labels 1..3, and 4 on the self loop only: PyG takes
#                                      its smallest and largest before dropping self loops, so
#                                      4 values
#   alchemy_full_node_attributes.txt   3 coordinates per node, which PyG's TUDataset drops
#                                      (use_node_attr=False) and the reader ignores
#   alchemy_full_graph_attributes.txt  12 targets per graph, ", "-separated
#   train_al_10.index, val_al_10.index, test_al_10.index
#                                      one line of comma-separated 0-based graph indices; graph
#                                      3 twice in train and graph 0 in train and val, as the
#                                      published split repeats graphs; graphs 1 and 7 in none
# The authors' get_alchemy_dataloader standardises the targets with the mean and unbiased
# standard deviation of PyG's dataset.data.y, which holds every graph of alchemy_full, not only
# the indexed ones: here the statistics are over all 8 graphs (graphs 1 and 7 move them).
import json
import random
import statistics
import struct

# Each graph: atom labels, and bonds (i, j, label) with graph-local 0-based ids.
graphs = [
    ([1, 1, 3], [(0, 1, 1), (1, 2, 2)]),                                   # a path
    ([1, 2, 1, 1], [(0, 1, 1), (1, 2, 1), (2, 3, 3), (3, 0, 1)]),          # a 4-cycle
    ([5], []),                                                             # one atom, no bond
    ([1, 1, 2, 3, 1], [(0, 1, 2), (1, 2, 1), (1, 3, 1), (3, 4, 3)]),       # a tree (+ self loop)
    ([3, 3], [(1, 0, 2)]),                                                 # one bond, listed 1→0 first
    ([1, 5, 1, 2], [(0, 1, 1), (0, 2, 1), (0, 3, 2)]),                     # a star
    ([2, 1, 1], [(0, 1, 3), (1, 2, 1), (2, 0, 1)]),                        # a triangle
    ([1, 1, 1, 2, 1, 3], [(0, 1, 1), (1, 2, 2), (2, 3, 1), (3, 4, 2), (4, 5, 1), (5, 0, 2)]),  # a ring
]
split = {"train": [3, 0, 5, 3], "val": [6, 0], "test": [4, 2]}


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


rng = random.Random(12)
targets = [[rng.uniform(-40, 40) * (j + 1) for j in range(12)] for _ in graphs]
offsets, n = [], 0
for atoms, _ in graphs:
    offsets.append(n)
    n += len(atoms)

with open("alchemy_full_graph_indicator.txt", "w") as f:
    for g, (atoms, _) in enumerate(graphs):
        f.writelines(f"{g + 1}\n" for _ in atoms)
with open("alchemy_full_node_labels.txt", "w") as f:
    f.writelines(f"{a}\n" for atoms, _ in graphs for a in atoms)
with open("alchemy_full_node_attributes.txt", "w") as f:
    f.writelines(f"{0.5 * v:.4f}, {-0.25 * v:.4f}, 1.0\n" for v in range(n))
lines = []  # (u, v, label), 1-based global ids
for g, (_, bonds) in enumerate(graphs[:7]):
    o = offsets[g] + 1
    for i, j, b in bonds:
        lines += [(o + i, o + j, b), (o + j, o + i, b)]
    if g == 3:
        lines.append((o + 2, o + 2, 4))  # a self loop, the only bond label 4
o = offsets[7] + 1
ring = [(o + i, o + j, b) for i, j, b in graphs[7][1]] + [(o + j, o + i, b) for i, j, b in graphs[7][1]]
random.Random(7).shuffle(ring)
lines = ring + lines
with open("alchemy_full_A.txt", "w") as f:
    f.writelines(f"{u}, {v}\n" for u, v, _ in lines)
with open("alchemy_full_edge_labels.txt", "w") as f:
    f.writelines(f"{b}\n" for _, _, b in lines)
with open("alchemy_full_graph_attributes.txt", "w") as f:
    f.writelines(", ".join(repr(y) for y in row) + "\n" for row in targets)
for part, name in [("train", "train_al_10.index"), ("val", "val_al_10.index"), ("test", "test_al_10.index")]:
    with open(name, "w") as f:
        f.write(",".join(str(i) for i in split[part]) + "\n")

# What reading must give: the entries of train, val and test in order, each its graph's atom
# categories (label − 1), bonds once as (min, max, label − 1) in increasing order, and targets
# rounded to float32 (PyG reads them so) and standardised over all 8 graphs.
y32 = [[f32(y) for y in row] for row in targets]
mean = [statistics.mean(col) for col in zip(*y32)]
std = [statistics.stdev(col) for col in zip(*y32)]
entries = []
for part in ["train", "val", "test"]:
    for g in split[part]:
        atoms, bonds = graphs[g]
        entries.append({
            "graph": g,
            "atoms": [a - 1 for a in atoms],
            "bonds": sorted([min(i, j), max(i, j), b - 1] for i, j, b in bonds),
            "targets": [(y - m) / s for y, m, s in zip(y32[g], mean, std)],
        })
with open("expected.json", "w") as f:
    json.dump({"node_vocab": 5, "edge_vocab": 4, "train": len(split["train"]), "val": len(split["val"]),
               "test": len(split["test"]), "entries": entries}, f, indent=1)
    f.write("\n")
