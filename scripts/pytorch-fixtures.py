#!/usr/bin/env python3
"""Generate test fixtures from the authors' PyTorch Subgraphormer code.

Runs the authors' own model code (BarSGuy/Subgraphormer: models/Subgraphormer.py,
models/layers.py, utils/preprocess.py) on a few molecules of ogbg-molesol and
ZINC-12k and writes, for each fixture NAME, into sgformer/pytorch/testdata/:

  NAME.yaml  the config, nested like their config/config.yaml
  NAME.pt    torch.save(model.state_dict()) after a short training run
             (float32, torch's default zip format)
  NAME.json  {"authors_commit", "torch", "torch_geometric", "ogb",
              "molecules": [{"graph": {...}, "pe": [[...]], "output": [...]}]}

and, for molesol-pe only, molesol-pe.fp64.pt (the same state_dict cast with
.double()) and molesol-pe.model.pt (torch.save(model), the whole-module pickle;
loading it needs the authors' checkout on sys.path and the torch_scatter shim
below).

The Go tests use these files to check that our importer of their checkpoints
reproduces their predictions. Nothing of the authors' repository is copied into
this project: the script imports their modules from a checkout given by
--authors.

Molecules: the first 8 graphs (ids 0..7, in file order) of each data set,
read from the project's shared data folder (../shared/data, or --data) in
OGB's raw layout (ogbg_molesol/raw/*.csv.gz) and the benchmarking-gnns text
export of ZINC-12k (zinc12k/ZINC_*.txt.gz; graphs 0..7 are in the train
split of both). Nothing is downloaded. (The first 8 of the test splits would
do as well but make larger files: the PE rows grow with n^2.)

Each molecule is turned into a PyG Data the way their pipeline gets it from OGB
/ PyG (x, edge_index with both directions, edge_attr, y), passed through their
utils.preprocess.subgraph_construction(cfg) transform (which also computes the
product-graph Laplacian PE, subgraph_PE, with their
get_laplacian_pe_for_kron_graph; its random eigenvector sign flip uses numpy's
global RNG, which we seed per molecule with np.random.seed(1000 + i)), the
model is trained for 20 Adam steps (lr 1e-2, train mode, their loss: RMSE for
molesol, L1 for ZINC) on the batch of the 8 molecules, then put in eval mode;
their PE_layer.sign_fliper (which flips PE signs at random even in eval) is
replaced by the identity, and each molecule's output is one forward pass of a
batch holding that molecule alone.

Graph format in NAME.json (our CLI's): each undirected bond once with u < v
(OGB's edge list has some bonds as v,u; they are swapped, features are
symmetric), node_features one list of 9 ints per atom (OGB) or one int (ZINC
atom type), edge_features one list of 3 ints per listed bond (OGB) or one int
(ZINC bond type). The PyG edge_index is rebuilt from that list: OGB style for
molesol (each bond as (u,v),(v,u) in turn, attributes repeated, as OGB's
read_csv_graph_raw does), PyG-ZINC style for ZINC (both directions, sorted by
(row, col), edge_attr 1-D). "pe" holds, for each product node s*n+v, the
columns of subgraph_PE that the model concatenates (subgraph_PE[:, :k]), with
no sign flip by the model.

Regenerate (from the project root, Python 3.11):

    python3 -m venv /tmp/venv-pyg
    /tmp/venv-pyg/bin/pip install torch==2.15.0 torch-geometric==2.8.1 \\
        ogb==1.3.6 easydict==1.14 pyyaml==6.0.4 numpy==2.4.6 scipy==1.17.1 \\
        pandas==3.1.1 scikit-learn==1.9.1
    git clone https://github.com/BarSGuy/Subgraphormer /tmp/subgraphormer-authors
    git -C /tmp/subgraphormer-authors checkout f9c087e59e7549df9fc740e2aee0a7b922a95681
    /tmp/venv-pyg/bin/python scripts/pytorch-fixtures.py \\
        --authors /tmp/subgraphormer-authors \\
        --authors-commit f9c087e59e7549df9fc740e2aee0a7b922a95681 \\
        --data ../shared/data --out sgformer/pytorch/testdata

(The fixtures in the repository were made with torch 2.15.0+cu132 run on the
CPU, one thread, torch.use_deterministic_algorithms(True); two runs give
byte-identical files. torch-scatter is not needed: the script installs a small
torch_scatter shim that calls torch_geometric.utils.scatter. ogb's
import-time version check is stubbed so nothing goes to the network.)

PyG versions: the authors' environment (Subgraphormer_environment.yaml) pins
torch-geometric 2.5.3. Their Attention_block unpacks
`x_attn, _ = GATConv(..., return_attention_weights=False)`, which only works
with PyG <= 2.5 (2.6+ returns the bare tensor for False), so under a newer PyG
the script replaces Attention_block.forward by the same call without the
unpacking (see patch_gat_return; recorded as "gat_return_patched" in
NAME.json). With torch-geometric==2.5.3 their code runs unpatched; the
committed fixtures were checked with it (--check-export on every NAME.pt,
and molesol-pe.model.pt reloaded): outputs bit-identical, same state_dict
keys (GATConv has `lin.weight` in both versions).

Check a state_dict written by our Go exporter against a fixture:

    /tmp/venv-pyg/bin/python scripts/pytorch-fixtures.py \\
        --authors /tmp/subgraphormer-authors \\
        --out sgformer/pytorch/testdata \\
        --check-export exported.pt --fixture molesol-pe

loads FILE with load_state_dict(strict=True) into a freshly built model of the
fixture's config, rebuilds the fixture's molecules through their pipeline,
runs them as above and prints one JSON line {"max_abs_diff", "max_rel_diff"}
against NAME.json's outputs; the exit status is 1 if max_rel_diff > 1e-5.
"""

import argparse
import copy
import gzip
import json
import os
import sys
import types

# ----------------------------------------------------------------- imports ---

# ogb.version starts a thread that asks PyPI whether ogb is outdated; stub it
# out so the script never touches the network.
_outdated = types.ModuleType("outdated")


def _check_outdated(package, version):  # pragma: no cover - trivial
    return False, version


_outdated.check_outdated = _check_outdated
sys.modules.setdefault("outdated", _outdated)
os.environ.setdefault("OUTDATED_IGNORE", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch_geometric  # noqa: E402  (must be imported before the shim)
import torch_geometric.utils  # noqa: E402
import torch_geometric.typing  # noqa: E402
from torch_geometric.data import Batch, Data  # noqa: E402


def install_torch_scatter_shim():
    """Their models import torch_scatter; it is not installable here.

    Installed after torch_geometric has been imported, so that PyG itself still
    believes torch_scatter is absent (WITH_TORCH_SCATTER False) and never calls
    into the shim.
    """
    assert not torch_geometric.typing.WITH_TORCH_SCATTER
    shim = types.ModuleType("torch_scatter")

    def scatter(src, index, dim=0, out=None, dim_size=None, reduce="sum"):
        assert out is None
        return torch_geometric.utils.scatter(
            src, index, dim=dim, dim_size=dim_size, reduce=reduce)

    shim.scatter = scatter
    sys.modules["torch_scatter"] = shim


FIXTURES = ("molesol-pe", "zinc-mlp", "molesol-mlp-pe")
NUM_MOLECULES = 8
TRAIN_STEPS = 20
LR = 1e-2
REL_TOL = 1e-5


def fixture_config(name):
    """The config of fixture `name`, nested like their config/config.yaml."""
    base_model = {
        "model_name": "Subgraphormer_PE",
        "num_layer": 2,
        "dim_embed": 24,
        "final_dim": 1,
        "dropout": 0.5,
        "attention_type": "Gat",
        "H": 4,
        "residual": True,
        "aggs": ["uL", "vL", "vv"],
        "sum_pooling": False,
        "PE": {"num_eigen_vectors": 2, "laplacian_type": "none"},
        "atom_encoder": {"in_dim": 0, "linear": False},
        "edge_encoder": {"in_dim": 0, "use_edge_attr": True, "linear": False},
        "layer_encoder": {"linear": True},
    }
    data_name = "ogbg-molesol"
    model = copy.deepcopy(base_model)
    if name == "molesol-pe":
        pass
    elif name == "molesol-mlp-pe":
        model["layer_encoder"]["linear"] = False
        model["PE"]["num_eigen_vectors"] = 4
    elif name == "zinc-mlp":
        data_name = "zinc12k"
        model.update({
            "model_name": "Subgraphormer",
            "dropout": 0.0,
            "residual": False,
            "sum_pooling": True,
        })
        # Not used without "_PE" in model_name; their default value.
        model["PE"]["num_eigen_vectors"] = 8
        model["layer_encoder"]["linear"] = False
    else:
        raise ValueError(f"unknown fixture {name!r}; have {FIXTURES}")
    return {
        "general": {"seed": 0, "device": "cpu"},
        "data": {
            "name": data_name,
            "bs": NUM_MOLECULES,
            "num_workers": 0,
            "preprocess": {"max_dis": 5},
            "sampling": {"keep_subgraph_prob": 1, "average_res_over": 1},
        },
        "model": model,
        "training": {"lr": LR, "wd": 0, "epochs": TRAIN_STEPS, "patience": 0},
    }


# -------------------------------------------------------------------- data ---

def _read_lines(path):
    with gzip.open(path, "rt") as f:
        return [line.strip() for line in f if line.strip()]


def load_molesol(data_dir, count):
    """The first `count` graphs of ogbg-molesol (CLI form)."""
    root = os.path.join(data_dir, "ogbg_molesol")
    raw = os.path.join(root, "raw")
    n_nodes = [int(x) for x in _read_lines(os.path.join(raw, "num-node-list.csv.gz"))]
    n_edges = [int(x) for x in _read_lines(os.path.join(raw, "num-edge-list.csv.gz"))]
    node_feat = [[int(v) for v in l.split(",")]
                 for l in _read_lines(os.path.join(raw, "node-feat.csv.gz"))]
    edges = [[int(v) for v in l.split(",")]
             for l in _read_lines(os.path.join(raw, "edge.csv.gz"))]
    edge_feat = [[int(v) for v in l.split(",")]
                 for l in _read_lines(os.path.join(raw, "edge-feat.csv.gz"))]
    labels = [float(x) for x in _read_lines(os.path.join(raw, "graph-label.csv.gz"))]
    node_off = np.concatenate([[0], np.cumsum(n_nodes)]).tolist()
    edge_off = np.concatenate([[0], np.cumsum(n_edges)]).tolist()
    mols = []
    for gid in range(count):
        n = n_nodes[gid]
        es, efs = [], []
        for e in range(edge_off[gid], edge_off[gid + 1]):
            u, v = edges[e]
            if u > v:
                u, v = v, u
            es.append([u, v])
            efs.append(edge_feat[e])
        mols.append({
            "id": gid,
            "graph": {
                "num_nodes": n,
                "edges": es,
                "node_features": node_feat[node_off[gid]:node_off[gid + 1]],
                "edge_features": efs,
            },
            "label": labels[gid],
        })
    return mols


def load_zinc(data_dir, count):
    """The first `count` graphs of ZINC-12k (CLI form)."""
    root = os.path.join(data_dir, "zinc12k")
    want = list(range(count))
    wanted = set(want)
    nodes = {g: {} for g in want}
    for l in _read_lines(os.path.join(root, "ZINC_Nodes.txt.gz")):
        g, v, t = (int(x) for x in l.split())
        if g in wanted:
            nodes[g][v] = t
    edges = {g: [] for g in want}
    for l in _read_lines(os.path.join(root, "ZINC_Edges.txt.gz")):
        g, u, v, b = (int(x) for x in l.split())
        if g in wanted:
            # The README says u < v, but about 1 bond in 10 is listed as v u.
            assert u != v
            edges[g].append((min(u, v), max(u, v), b))
    labels = {}
    for l in _read_lines(os.path.join(root, "ZINC_Labels.txt.gz")):
        g, y = l.split()
        if int(g) in wanted:
            labels[int(g)] = float(y)
    mols = []
    for g in want:
        n = len(nodes[g])
        assert sorted(nodes[g]) == list(range(n))
        mols.append({
            "id": g,
            "graph": {
                "num_nodes": n,
                "edges": [[u, v] for u, v, _ in edges[g]],
                "node_features": [nodes[g][v] for v in range(n)],
                "edge_features": [b for _, _, b in edges[g]],
            },
            "label": labels[g],
        })
    return mols


def load_molecules(dataset, data_dir):
    if dataset == "ogbg-molesol":
        return load_molesol(data_dir, NUM_MOLECULES)
    if dataset == "zinc12k":
        return load_zinc(data_dir, NUM_MOLECULES)
    raise ValueError(dataset)


def to_pyg(graph, dataset, label):
    """A PyG Data shaped like the one their loaders hand to the transform."""
    n = graph["num_nodes"]
    if dataset == "zinc12k":
        # PyG's ZINC: x [n, 1] long, edge_attr [2E] long (1-D), edges of both
        # directions sorted by (row, col) (from adj.nonzero()), y [1] float.
        both = []
        for (u, v), b in zip(graph["edges"], graph["edge_features"]):
            both.append((u, v, b))
            both.append((v, u, b))
        both.sort()
        edge_index = torch.tensor([[u for u, _, _ in both], [v for _, v, _ in both]],
                                  dtype=torch.long).reshape(2, -1)
        edge_attr = torch.tensor([b for _, _, b in both], dtype=torch.long)
        x = torch.tensor(graph["node_features"], dtype=torch.long).reshape(n, 1)
        y = torch.tensor([label], dtype=torch.float32)
    else:
        # OGB's read_csv_graph_raw(add_inverse_edge=True): (u,v),(v,u) for
        # each bond in turn, edge features repeated; x [n, 9], edge_attr
        # [2E, 3] long, y [1, 1] float.
        src, dst, attrs = [], [], []
        for (u, v), f in zip(graph["edges"], graph["edge_features"]):
            src += [u, v]
            dst += [v, u]
            attrs += [f, f]
        edge_index = torch.tensor([src, dst], dtype=torch.long).reshape(2, -1)
        edge_attr = torch.tensor(attrs, dtype=torch.long).reshape(-1, 3)
        x = torch.tensor(graph["node_features"], dtype=torch.long).reshape(n, 9)
        y = torch.tensor([[label]], dtype=torch.float32)
    return Data(x=x, edge_index=edge_index, edge_attr=edge_attr, y=y, num_nodes=n)


# ------------------------------------------------------------------- model ---

def patch_gat_return(layers):
    """Make their Attention_block work with PyG >= 2.6.

    Their layers.Attention_block.forward does
        x_attn, _ = self.attn_layer(..., return_attention_weights=False)
    which relies on PyG <= 2.5 (their environment pins 2.5.3), where GATConv
    returns (out, (edge_index, alpha)) whenever return_attention_weights is a
    bool. PyG 2.6+ returns just `out` for False, and the unpacking fails. Only
    when the installed PyG behaves that way, replace the method by one that
    makes the same call and keeps `out`; the computation is unchanged.
    Returns whether the patch was applied.
    """
    import torch_geometric.nn as gnn
    probe = gnn.GATConv(2, 1)
    with torch.no_grad():
        r = probe(torch.zeros(2, 2), torch.tensor([[0], [1]]),
                  return_attention_weights=False)
    if isinstance(r, tuple):
        return False

    def forward(self, x, edge_index, edge_attr):
        out = self.attn_layer(x=x, edge_index=edge_index, edge_attr=edge_attr,
                              return_attention_weights=False)
        if isinstance(out, tuple):
            out = out[0]
        return out

    layers.Attention_block.forward = forward
    return True


class Authors:
    """Their modules, imported from a checkout."""

    def __init__(self, path):
        path = os.path.abspath(path)
        for f in ("models/Subgraphormer.py", "models/layers.py", "utils/preprocess.py"):
            if not os.path.isfile(os.path.join(path, f)):
                sys.exit(f"--authors {path}: no {f}")
        install_torch_scatter_shim()
        sys.path.insert(0, path)
        from easydict import EasyDict
        import models.Subgraphormer as sub
        import models.layers as layers
        import utils.preprocess as prep
        self.EasyDict = EasyDict
        self.sub, self.layers, self.prep = sub, layers, prep
        self.patched_gat_return = patch_gat_return(layers)

    def cfg(self, plain):
        return self.EasyDict(copy.deepcopy(plain))

    def build_data(self, cfg, mols):
        transform = self.prep.subgraph_construction(cfg)
        out = []
        for i, m in enumerate(mols):
            # Their PE sign flip (preprocess.sign_fliper) draws from numpy's
            # global RNG: seed it per molecule so the result does not depend
            # on what ran before.
            np.random.seed(1000 + i)
            out.append(transform(to_pyg(m["graph"], cfg.data.name, m["label"])))
        return out

    def model(self, cfg):
        return self.sub.Subgraphormer(cfg)


def uses_pe(cfg):
    return "_PE" in cfg.model.model_name


def pe_columns(cfg, d):
    return d.subgraph_PE[:, :cfg.model.PE.num_eigen_vectors]


def loss_fn(cfg):
    if cfg.data.name == "zinc12k":
        return torch.nn.L1Loss()
    mse = torch.nn.MSELoss()
    return lambda out, y: torch.sqrt(mse(out, y))


def train(model, cfg, datas):
    opt = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=0)
    crit = loss_fn(cfg)
    model.train()
    losses = []
    for _ in range(TRAIN_STEPS):
        batch = Batch.from_data_list([d.clone() for d in datas])
        opt.zero_grad()
        pred = model(batch).view(batch.y.shape)
        loss = crit(pred, batch.y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def no_sign_flip(model):
    """Replace their random PE sign flip by the identity (instance attribute)."""
    if model.PE_layer is not None:
        model.PE_layer.sign_fliper = lambda t: t


def restore_sign_flip(model):
    if model.PE_layer is not None and "sign_fliper" in vars(model.PE_layer):
        del model.PE_layer.sign_fliper


@torch.no_grad()
def predict(model, datas):
    model.eval()
    outs = []
    for d in datas:
        batch = Batch.from_data_list([d.clone()])
        assert int(batch.batch.abs().sum()) == 0
        out = model(batch)
        assert out.dtype == torch.float32 and out.shape[0] == 1
        outs.append(out[0].tolist())
    return outs


def setup_determinism():
    torch.manual_seed(0)
    np.random.seed(0)
    torch.set_num_threads(1)
    try:
        torch.use_deterministic_algorithms(True)
    except Exception as e:  # pragma: no cover
        print(f"warning: use_deterministic_algorithms: {e}", file=sys.stderr)


# -------------------------------------------------------------- generation ---

def dump_json(obj, path):
    # Compact JSON; floats as repr(float(x)), which is exact for float32.
    with open(path, "w") as f:
        json.dump(obj, f, separators=(",", ":"), allow_nan=False)
        f.write("\n")


def generate(args, authors):
    import yaml
    os.makedirs(args.out, exist_ok=True)
    versions = {
        "authors_commit": args.authors_commit,
        "torch": torch.__version__,
        "torch_geometric": torch_geometric.__version__,
        "ogb": __import__("ogb").__version__,
    }
    print(json.dumps(versions))
    names = args.fixtures or list(FIXTURES)
    for name in names:
        plain = fixture_config(name)
        cfg = authors.cfg(plain)
        setup_determinism()
        mols = load_molecules(cfg.data.name, args.data)
        datas = authors.build_data(cfg, mols)
        torch.manual_seed(0)
        model = authors.model(cfg)
        losses = train(model, cfg, datas)
        model.eval()
        no_sign_flip(model)
        outs = predict(model, datas)

        molecules = []
        for m, d, o in zip(mols, datas, outs):
            entry = {"graph": m["graph"]}
            if uses_pe(cfg):
                pe = pe_columns(cfg, d)
                assert pe.dtype == torch.float32
                assert pe.shape == (m["graph"]["num_nodes"] ** 2,
                                    cfg.model.PE.num_eigen_vectors)
                entry["pe"] = [[float(v) for v in row] for row in pe.tolist()]
            entry["output"] = [float(v) for v in o]
            molecules.append(entry)
        doc = dict(versions)
        doc["fixture"] = name
        doc["molecule_ids"] = [m["id"] for m in mols]
        doc["gat_return_patched"] = authors.patched_gat_return
        doc["molecules"] = molecules
        dump_json(doc, os.path.join(args.out, f"{name}.json"))

        with open(os.path.join(args.out, f"{name}.yaml"), "w") as f:
            yaml.safe_dump(plain, f, sort_keys=False, default_flow_style=None)

        sd = model.state_dict()
        for k, v in sd.items():
            assert v.dtype in (torch.float32, torch.int64), (k, v.dtype)
        torch.save(sd, os.path.join(args.out, f"{name}.pt"))

        print(f"== {name}: train loss {losses[0]:.4f} -> {losses[-1]:.4f}; "
              f"outputs {[round(o[0], 4) for o in outs]}")
        for k, v in sd.items():
            print(f"  {k} {tuple(v.shape)} {v.dtype}")

        if name == "molesol-pe":
            sd64 = copy.deepcopy(model).double().state_dict()
            torch.save(sd64, os.path.join(args.out, f"{name}.fp64.pt"))
            restore_sign_flip(model)
            path = os.path.join(args.out, f"{name}.model.pt")
            try:
                torch.save(model, path)
                # Reload to be sure the pickle is usable.
                m2 = torch.load(path, weights_only=False)
                no_sign_flip(m2)
                outs2 = predict(m2, datas)
                assert outs2 == outs, "whole-module pickle gives other outputs"
                print(f"  {name}.model.pt: whole-module pickle ok")
            except Exception as e:
                if os.path.exists(path):
                    os.remove(path)
                print(f"  {name}.model.pt: whole-module pickle FAILED: {e!r}")
            no_sign_flip(model)


# ------------------------------------------------------------ check-export ---

def check_export(args, authors):
    import yaml
    name = args.fixture
    with open(os.path.join(args.out, f"{name}.yaml")) as f:
        plain = yaml.safe_load(f)
    with open(os.path.join(args.out, f"{name}.json")) as f:
        doc = json.load(f)
    cfg = authors.cfg(plain)
    setup_determinism()
    mols = [{"graph": m["graph"], "label": 0.0} for m in doc["molecules"]]
    datas = authors.build_data(cfg, mols)
    if uses_pe(cfg):
        k = cfg.model.PE.num_eigen_vectors
        for d, m in zip(datas, doc["molecules"]):
            want = torch.tensor(m["pe"], dtype=torch.float32).reshape(-1, k)
            if not torch.equal(pe_columns(cfg, d), want):
                print(f"warning: rebuilt PE differs from {name}.json's "
                      f"(max {float((pe_columns(cfg, d) - want).abs().max()):.3g});"
                      " using the JSON's", file=sys.stderr)
                d.subgraph_PE = d.subgraph_PE.clone()
                d.subgraph_PE[:, :k] = want
    torch.manual_seed(0)
    model = authors.model(cfg)
    sd = torch.load(args.check_export, map_location="cpu", weights_only=True)
    model.load_state_dict(sd, strict=True)
    model.float()
    model.eval()
    no_sign_flip(model)
    outs = predict(model, datas)
    got = torch.tensor(outs, dtype=torch.float64)
    want = torch.tensor([m["output"] for m in doc["molecules"]], dtype=torch.float64)
    diff = (got - want).abs()
    max_abs = float(diff.max())
    max_rel = float((diff / want.abs().clamp_min(1e-12)).max())
    print(json.dumps({"max_abs_diff": max_abs, "max_rel_diff": max_rel}))
    return 1 if not (max_rel <= REL_TOL) else 0


# -------------------------------------------------------------------- main ---

def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--authors", required=True,
                   help="checkout of github.com/BarSGuy/Subgraphormer")
    p.add_argument("--authors-commit", default="unknown",
                   help="commit of that checkout, recorded in NAME.json")
    p.add_argument("--data", default=os.path.join(root, "..", "shared", "data"),
                   help="the shared data folder (default ../shared/data)")
    p.add_argument("--out", default=os.path.join(root, "sgformer", "pytorch", "testdata"))
    p.add_argument("--fixtures", nargs="*", choices=FIXTURES,
                   help="only these fixtures (default: all)")
    p.add_argument("--check-export", metavar="FILE",
                   help="check a state_dict FILE against fixture --fixture")
    p.add_argument("--fixture", choices=FIXTURES)
    args = p.parse_args()

    authors = Authors(args.authors)
    print(f"authors commit: {args.authors_commit}; torch {torch.__version__}, "
          f"torch_geometric {torch_geometric.__version__}; Attention_block "
          f"patched for PyG>=2.6 GATConv return: {authors.patched_gat_return}",
          file=sys.stderr)
    if args.check_export:
        if not args.fixture:
            p.error("--check-export needs --fixture")
        sys.exit(check_export(args, authors))
    generate(args, authors)


if __name__ == "__main__":
    main()
