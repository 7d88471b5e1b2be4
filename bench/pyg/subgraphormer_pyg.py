"""Subgraphormer (ZINC-12k recipe) in PyTorch Geometric, for timing against sgformer.

Same configuration as `sgformer train --dataset zinc12k` (the authors' yamls/zinc12k_*.yaml): product
graph G□G with internal, external and point connectivities; atom + node-marking embedding
(distance clamped to 5, one index for unreachable) at width hidden - k, concatenated with the
k product-graph PE columns (the authors' procedure: products of the first floor(sqrt(k+1))
non-trivial eigenvectors of L(G), or the exact k smallest eigenpairs; random sign flips in
training); per layer GATConv(heads=4, concat, hidden/3 wide, self loops filled with the mean
bond feature, bonds = ReLU(embedding) only in the logits) over internal and external edges,
the GIN point update (1 + eps) x(s,v) + x(v,v) -> layer encoder, concatenation -> layer
encoder -> BatchNorm -> ReLU, where the layer encoder is the authors' MLP (Linear -> BatchNorm
-> ReLU -> Linear) or one Linear; pooling sum / n per graph; head hidden -> 2 hidden -> ReLU
-> 1; L1 loss, Adam 5e-4.

--product onthefly rebuilds each molecule's product graph (edge lists and node marks) every
time it enters a batch, on the CPU, as the authors' data transform does; --product precomputed
builds them once. The PE is computed once in both (a pre-transform). Prints one JSON line per
epoch with the training time and the test-pass time (CUDA-synchronised), then a summary line
(their medians over the epochs after the first, over the epoch and per batch).

`--check-product FILE` prints the product graph of a graph JSON in the format of
`sgformer product`, and `--check-pe FILE` its PE in the format of `sgformer pe` (for comparing
the two implementations).
"""

import argparse
import gzip
import json
import math
import os
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

MAX_DIS = 5


# ---------------------------------------------------------------- data


def read_zinc(folder):
    """Returns graphs [(n, atoms, edges [(u, v, bond)])], labels and the split's indices."""

    def lines(name):
        path = os.path.join(folder, name)
        opener = gzip.open if os.path.exists(path + ".gz") else open
        with opener(path + ".gz" if opener is gzip.open else path, "rt") as f:
            for line in f:
                if line.strip():
                    yield line.split()

    atoms, edges, labels = {}, {}, {}
    for g, v, a in lines("ZINC_Nodes.txt"):
        atoms.setdefault(int(g), {})[int(v)] = int(a)
    for g, u, v, b in lines("ZINC_Edges.txt"):
        edges.setdefault(int(g), []).append((int(u), int(v), int(b)))
    for g, y in lines("ZINC_Labels.txt"):
        labels[int(g)] = float(y)
    graphs = []
    for g in range(len(atoms)):
        n = len(atoms[g])
        graphs.append((n, [atoms[g][v] for v in range(n)], edges.get(g, [])))
    with open(os.path.join(folder, "ZINC_splits.json")) as f:
        split = json.load(f)[0]
    sel = split["model_selection"][0]
    return graphs, [labels[g] for g in range(len(graphs))], sel["train"], sel["validation"], split["test"]


def product_graph(n, edges):
    """The connectivities of G□G as (src, dst, bond) tensors, product node (s, v) = s*n + v,
    sorted by (dst, src) like sgformer's, and the node marks d(s, v) (-1 unreachable)."""
    e = torch.tensor(edges, dtype=torch.long).reshape(-1, 3)
    u, v, b = e[:, 0], e[:, 1], e[:, 2]
    src1, dst1, bond1 = torch.cat([u, v]), torch.cat([v, u]), torch.cat([b, b])  # w -> v
    roots = torch.arange(n).unsqueeze(1)
    # internal: (s, v) <- (s, w) for each edge w -> v and each root s
    isrc, idst = (roots * n + src1).flatten(), (roots * n + dst1).flatten()
    ibond = bond1.repeat(n)
    # external: (s, v) <- (t, v) for each edge t -> s and each node v
    esrc, edst = (src1.unsqueeze(1) * n + roots.T).flatten(), (dst1.unsqueeze(1) * n + roots.T).flatten()
    ebond = bond1.repeat_interleave(n)
    # point: (s, v) <- (v, v)
    pdst = torch.arange(n * n)
    psrc = (pdst % n) * (n + 1)

    def order(src, dst, bond):
        k = torch.argsort(dst * n * n + src)
        return src[k], dst[k], bond[k]

    # node marks: all-pairs shortest paths (Floyd-Warshall on n <= 38 nodes)
    d = torch.full((n, n), math.inf)
    d[torch.arange(n), torch.arange(n)] = 0
    d[src1, dst1] = 1
    for k in range(n):
        d = torch.minimum(d, d[:, k : k + 1] + d[k : k + 1, :])
    marks = torch.where(torch.isinf(d), torch.full_like(d, -1), d).long().flatten()
    return order(isrc, idst, ibond), order(esrc, edst, ebond), (psrc, pdst), marks


def product_pe(n, edges, k, mode):
    """The product-graph PE as n*n x k, columns v_i(s) v_j(v) for eigenpairs (i, j) of L(G)
    ordered by lambda_i + lambda_j, ties by (i, j), each v_i with its largest entry positive.
    mode "exact": the k smallest eigenpairs of L(G□G); "reference" (the authors' code): pairs
    of the first m = floor(sqrt(k+1)) non-trivial eigenvectors only, zero-padded to k."""
    a = np.zeros((n, n))
    for u, v, _ in edges:
        a[u, v] = a[v, u] = 1
    lam, vec = np.linalg.eigh(np.diag(a.sum(1)) - a)
    big = (np.abs(vec) >= np.abs(vec).max(0) - 1e-9).argmax(0)  # as sgformer: the first within 1e-9
    vec = vec * np.sign(vec[big, np.arange(n)])  # of the largest magnitude is made positive
    idx = np.arange(n)
    if mode == "reference":
        idx = np.arange(1, 1 + min(math.isqrt(k + 1), n - 1))
    i, j = np.meshgrid(idx, idx, indexing="ij")
    i, j = i.flatten(), j.flatten()
    total = lam[i] + lam[j]
    keys = np.round(total / max(1.0, lam.max()) * 1e7)
    pick = np.lexsort((j, i, keys))[:k]
    pe = np.zeros((n * n, k), dtype=np.float32)
    pe[:, : len(pick)] = (vec[:, i[pick]][:, None, :] * vec[:, j[pick]][None, :, :]).reshape(n * n, -1)
    return torch.from_numpy(pe)


class Example:
    """One molecule, its PE, and (precomputed mode) its product graph."""

    def __init__(self, graph, y, k, pe_mode, precompute):
        self.n, self.atoms, self.edges = graph
        self.y = y
        self.pe = product_pe(self.n, self.edges, k, pe_mode)
        self.product = product_graph(self.n, self.edges) if precompute else None

    def connectivities(self):
        return self.product if self.product is not None else product_graph(self.n, self.edges)


def collate(examples, device):
    """Concatenates the product graphs of a batch, offsetting node indices."""
    xs, marks, pes, graph_of, ns = [], [], [], [], []
    conn = {"int": ([], [], []), "ext": ([], [], []), "pt": ([], [])}
    off = 0
    for g, ex in enumerate(examples):
        n = ex.n
        (isrc, idst, ib), (esrc, edst, eb), (psrc, pdst), mark = ex.connectivities()
        xs.append(torch.tensor(ex.atoms, dtype=torch.long).repeat(n))
        marks.append(torch.where(mark < 0, MAX_DIS + 1, mark.clamp(max=MAX_DIS)))
        pes.append(ex.pe)
        graph_of.append(torch.full((n * n,), g, dtype=torch.long))
        ns.append(n)
        for key, parts in (("int", (isrc, idst, ib)), ("ext", (esrc, edst, eb))):
            conn[key][0].append(parts[0] + off)
            conn[key][1].append(parts[1] + off)
            conn[key][2].append(parts[2])
        conn["pt"][0].append(psrc + off)
        conn["pt"][1].append(pdst + off)
        off += n * n
    cat = lambda parts: torch.cat(parts).to(device, non_blocking=True)  # noqa: E731
    return {
        "x": cat(xs), "mark": cat(marks), "pe": cat(pes), "graph": cat(graph_of),
        "n": torch.tensor(ns, dtype=torch.float32, device=device),
        "int": torch.stack([cat(conn["int"][0]), cat(conn["int"][1])]), "int_bond": cat(conn["int"][2]),
        "ext": torch.stack([cat(conn["ext"][0]), cat(conn["ext"][1])]), "ext_bond": cat(conn["ext"][2]),
        "pt_src": cat(conn["pt"][0]),
        "y": torch.tensor([ex.y for ex in examples], dtype=torch.float32, device=device),
    }


# ---------------------------------------------------------------- model


class TorchGAT(nn.Module):
    """PyG's GATConv(in, out, heads, concat=True, edge_dim, add_self_loops=True,
    fill_value="mean") written in plain torch, for machines without torch_geometric."""

    def __init__(self, dim_in, out, heads, edge_dim):
        super().__init__()
        self.heads, self.out = heads, out
        self.lin = nn.Linear(dim_in, heads * out, bias=False)
        self.lin_edge = nn.Linear(edge_dim, heads * out, bias=False)
        self.att_src = nn.Parameter(torch.empty(1, heads, out))
        self.att_dst = nn.Parameter(torch.empty(1, heads, out))
        self.att_edge = nn.Parameter(torch.empty(1, heads, out))
        self.bias = nn.Parameter(torch.zeros(heads * out))
        for p in (self.att_src, self.att_dst, self.att_edge):
            nn.init.xavier_uniform_(p)

    def forward(self, x, edge_index, edge_attr):
        n = x.size(0)
        src, dst = edge_index
        count = torch.zeros(n, device=x.device).index_add_(0, dst, torch.ones_like(dst, dtype=x.dtype))
        loop_attr = torch.zeros(n, edge_attr.size(1), device=x.device).index_add_(0, dst, edge_attr)
        loop_attr = loop_attr / count.clamp(min=1).unsqueeze(1)
        loops = torch.arange(n, device=x.device)
        src, dst = torch.cat([src, loops]), torch.cat([dst, loops])
        edge_attr = torch.cat([edge_attr, loop_attr])
        h = self.lin(x).view(n, self.heads, self.out)
        e = self.lin_edge(edge_attr).view(-1, self.heads, self.out)
        logit = (h * self.att_src).sum(-1)[src] + (h * self.att_dst).sum(-1)[dst] + (e * self.att_edge).sum(-1)
        logit = F.leaky_relu(logit, 0.2)
        top = torch.full((n, self.heads), -math.inf, device=x.device).scatter_reduce(
            0, dst.unsqueeze(1).expand_as(logit), logit, reduce="amax", include_self=True)
        w = torch.exp(logit - top[dst])
        denom = torch.zeros(n, self.heads, device=x.device).index_add_(0, dst, w)
        alpha = w / denom[dst]
        out = torch.zeros(n, self.heads, self.out, device=x.device).index_add_(0, dst, alpha.unsqueeze(-1) * h[src])
        return out.reshape(n, -1) + self.bias


def gat(kind, dim_in, out, heads, edge_dim):
    if kind == "torch":
        return TorchGAT(dim_in, out, heads, edge_dim)
    from torch_geometric.nn import GATConv

    return GATConv(dim_in, out, heads=heads, concat=True, edge_dim=edge_dim, add_self_loops=True,
                   fill_value="mean", negative_slope=0.2, dropout=0.0)


def layer_encoder(kind, dim_in, out):
    """The authors' layer encoder: their MLP (Linear -> BatchNorm -> ReLU -> Linear, hidden
    width dim_in) or one Linear map."""
    if kind == "linear":
        return nn.Linear(dim_in, out)
    return nn.Sequential(nn.Linear(dim_in, dim_in), nn.BatchNorm1d(dim_in), nn.ReLU(), nn.Linear(dim_in, out))


class SAB(nn.Module):
    """Subgraph Attention Block: internal and external attention, point update, combine."""

    def __init__(self, hidden, heads, kind, encoder):
        super().__init__()
        part = hidden // 3
        self.bond_int, self.bond_ext = nn.Embedding(4, hidden), nn.Embedding(4, hidden)
        self.att_int = gat(kind, hidden, part // heads, heads, hidden)
        self.att_ext = gat(kind, hidden, part // heads, heads, hidden)
        self.eps = nn.Parameter(torch.zeros(1))
        self.point = layer_encoder(encoder, hidden, part)
        self.combine = layer_encoder(encoder, 3 * part, hidden)
        self.norm = nn.BatchNorm1d(hidden)

    def forward(self, h, b):
        a = self.att_int(h, b["int"], F.relu(self.bond_int(b["int_bond"])))
        c = self.att_ext(h, b["ext"], F.relu(self.bond_ext(b["ext_bond"])))
        p = self.point((1 + self.eps) * h + h[b["pt_src"]])
        return F.relu(self.norm(self.combine(torch.cat([a, c, p], dim=1))))


class Subgraphormer(nn.Module):
    def __init__(self, hidden, layers, heads, k, kind, encoder):
        super().__init__()
        self.atom = nn.Embedding(28, hidden - k)
        self.mark = nn.Embedding(MAX_DIS + 2, hidden - k)
        self.blocks = nn.ModuleList(SAB(hidden, heads, kind, encoder) for _ in range(layers))
        self.head = nn.Sequential(nn.Linear(hidden, 2 * hidden), nn.ReLU(), nn.Linear(2 * hidden, 1))

    def forward(self, b):
        pe = b["pe"]
        if self.training:  # a random sign per graph and PE column
            flips = torch.randint(0, 2, (b["n"].numel(), pe.size(1)), device=pe.device) * 2 - 1
            pe = pe * flips[b["graph"]]
        h = torch.cat([self.atom(b["x"]) + self.mark(b["mark"]), pe], dim=1)
        for block in self.blocks:
            h = block(h, b)
        pooled = torch.zeros(b["n"].numel(), h.size(1), device=h.device).index_add_(0, b["graph"], h)
        return self.head(pooled / b["n"].unsqueeze(1)).squeeze(1)


# ---------------------------------------------------------------- main


def sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default="../shared/data/zinc12k", help="folder of the ZINC text export")
    ap.add_argument("--product", choices=["onthefly", "precomputed"], default="onthefly")
    ap.add_argument("--gat", choices=["pyg", "torch"], default="pyg", help="PyG's GATConv, or the same in plain torch")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--layers", type=int, default=6)
    ap.add_argument("--hidden", type=int, default=96)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--pe-k", type=int, default=8)
    ap.add_argument("--pe-mode", choices=["reference", "exact"], default="reference",
                    help="the authors' PE procedure (the ZINC recipe's), or the exact k smallest eigenpairs")
    ap.add_argument("--layer-encoder", choices=["mlp", "linear"], default="mlp",
                    help="the maps of the point update and after the concatenation (the ZINC recipe: mlp)")
    ap.add_argument("--lr", type=float, default=5e-4)
    ap.add_argument("--embedding-init", choices=["pytorch", "authors"], default="pytorch",
                    help="atom and bond embeddings started from PyTorch's N(0, 1), or as the authors' OGB encoders (Xavier-uniform over OGB's table sizes)")
    ap.add_argument("--train-subset", type=int, default=0, help="first N training molecules (0: all)")
    ap.add_argument("--eval-subset", type=int, default=0, help="first N test molecules (0: all)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--check-product", metavar="FILE", help="print the product graph of a graph JSON and exit")
    ap.add_argument("--check-pe", metavar="FILE", help="print the PE (--pe-k, --pe-mode) of a graph JSON and exit")
    args = ap.parse_args()

    if args.check_pe:
        with open(args.check_pe) if args.check_pe != "-" else sys.stdin as f:
            g = json.load(f)
        pe = product_pe(g["num_nodes"], [(u, v, 1) for u, v in g["edges"]], args.pe_k, args.pe_mode)
        print(json.dumps({"pe": pe.tolist()}, separators=(",", ":")))
        return

    if args.check_product:
        with open(args.check_product) if args.check_product != "-" else sys.stdin as f:
            g = json.load(f)
        n = g["num_nodes"]
        (isrc, idst, _), (esrc, edst, _), (psrc, pdst), marks = product_graph(n, [(u, v, 1) for u, v in g["edges"]])
        pairs = lambda d, s: torch.stack([d, s], 1).tolist()  # noqa: E731
        print(json.dumps({"num_nodes": n, "internal": pairs(idst, isrc), "external": pairs(edst, esrc),
                          "point": pairs(pdst, psrc), "distance": marks.tolist()}, separators=(",", ":")))
        return

    torch.manual_seed(args.seed)
    device = torch.device(args.device)
    t0 = time.perf_counter()
    graphs, labels, train, _, test = read_zinc(args.data)
    if args.train_subset:
        train = train[: args.train_subset]
    if args.eval_subset:
        test = test[: args.eval_subset]
    pre = args.product == "precomputed"
    examples = {i: Example(graphs[i], labels[i], args.pe_k, args.pe_mode, pre) for i in train + test}
    prep = time.perf_counter() - t0

    model = Subgraphormer(args.hidden, args.layers, args.heads, args.pe_k, args.gat, args.layer_encoder)
    if args.embedding_init == "authors":
        # As the authors' OGB AtomEncoder and BondEncoder start them: Xavier-uniform over OGB's
        # table sizes (119 atom rows, 5 bond rows), which ZINC's types index.
        nn.init.uniform_(model.atom.weight, -math.sqrt(6 / (119 + args.hidden - args.pe_k)), math.sqrt(6 / (119 + args.hidden - args.pe_k)))
        for block in model.blocks:
            for emb in (block.bond_int, block.bond_ext):
                nn.init.uniform_(emb.weight, -math.sqrt(6 / (5 + args.hidden)), math.sqrt(6 / (5 + args.hidden)))
    model = model.to(device)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    info = {"product": args.product, "gat": args.gat, "pe_mode": args.pe_mode, "layer_encoder": args.layer_encoder,
            "device": str(device), "torch": torch.__version__,
            "parameters": sum(p.numel() for p in model.parameters()), "preprocess_seconds": prep,
            "train_graphs": len(train), "test_graphs": len(test)}
    if device.type == "cuda":
        info["gpu"] = torch.cuda.get_device_name(device)
    print(json.dumps(info), flush=True)

    rng = np.random.default_rng(args.seed)
    epochs = []
    for epoch in range(1, args.epochs + 1):
        if device.type == "cuda":
            torch.cuda.reset_peak_memory_stats(device)
        model.train()
        order = rng.permutation(train)
        sync(device)
        start = time.perf_counter()
        loss_sum = 0.0
        for i in range(0, len(order), args.batch_size):
            b = collate([examples[j] for j in order[i : i + args.batch_size]], device)
            loss = F.l1_loss(model(b), b["y"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            loss_sum += loss.detach() * len(b["n"])
        sync(device)
        train_s = time.perf_counter() - start

        model.eval()
        start = time.perf_counter()
        err = torch.zeros((), device=device)
        with torch.no_grad():
            for i in range(0, len(test), args.batch_size):
                b = collate([examples[j] for j in test[i : i + args.batch_size]], device)
                err += (model(b) - b["y"]).abs().sum()
        sync(device)
        test_s = time.perf_counter() - start
        rec = {"epoch": epoch, "train_seconds": train_s, "test_seconds": test_s,
               "train_loss": float(loss_sum) / len(order), "test_mae": float(err) / len(test)}
        if device.type == "cuda":
            rec["peak_mem_mib"] = torch.cuda.max_memory_allocated(device) / 2**20
        epochs.append(rec)
        print(json.dumps(rec), flush=True)
    steady = epochs[1:] or epochs
    train_median = float(np.median([r["train_seconds"] for r in steady]))
    test_median = float(np.median([r["test_seconds"] for r in steady]))
    train_batches, test_batches = -(-len(train) // args.batch_size), -(-len(test) // args.batch_size)
    print(json.dumps({"summary": True, "product": args.product, "gat": args.gat,
                      "train_seconds_median": train_median, "test_seconds_median": test_median,
                      # per training step and per inference batch
                      "train_step_seconds_median": train_median / train_batches,
                      "test_batch_seconds_median": test_median / test_batches}), flush=True)


if __name__ == "__main__":
    main()
