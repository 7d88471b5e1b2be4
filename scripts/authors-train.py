#!/usr/bin/env python3
"""Train the authors' Subgraphormer + PE on ogbg-molesol with their recipe and code.

Runs the authors' own PyTorch code (BarSGuy/Subgraphormer, imported from a
checkout given by --authors; nothing of it is copied here) the way their
main.py does for ogbg-molesol, on the CPU, and writes a model that our Go
importer (sgformer/pytorch) loads. Helpers shared with
scripts/pytorch-fixtures.py (the torch_scatter shim, the ogb network-check
stub, the GATConv return patch for PyG >= 2.6, the import of their modules)
are imported from that script.

Recipe: the paper's "Best hyperparameters for Subgraphormer + PE in full bag
settings" row for molesol (3 layers, lr 0.001, embedding 60, 100 epochs,
batch 32, dropout 0.5, 2 eigenvectors) on the grid of their
yamls/molesol_deterministic.yaml (model Subgraphormer_PE, Gat, H 4, residual
True, sum_pooling False, layer_encoder.linear True, lookup-table atom and bond
encoders, wd 0); the rest from their config/config.yaml (aggs uL, vL, vv,
max_dis 5, keep_subgraph_prob 1). Seed 0 (general.seed).

Code path, all theirs (utils/*.py, models/*.py), as main.py calls it:
torch.manual_seed(seed); utils.data.get_ogb_dataloader (OGB's
PygGraphPropPredDataset and its scaffold split; train shuffled, val/test not,
batch 32); models.Subgraphormer(cfg); utils.training.get_loss_func (RMSELoss),
get_optim_func (Adam, lr 1e-3, wd 0), get_sched_func (ConstantLR, factor 1),
get_evaluator (OGB's Evaluator, RMSE); then per epoch train_loop, eval_loop on
val and on test (model.eval(), under no_grad), utils.my_logging.
update_best_metrics (the test RMSE at the epoch of the best val RMSE, strict <)
and sched_step.

Differences from their run, all forced or asked for:
  * CPU (torch.device("cpu")) instead of cuda:0; torch.set_num_threads(--threads),
    default 1 (2 threads on 2 busy cores: 169 s per epoch instead of 19 s).
  * Their transform utils.preprocess.subgraph_construction is applied once per
    molecule before training, not on the fly by the DataLoader each epoch.
    It is deterministic except its random eigenvector sign flip (numpy's
    global RNG), which is seeded per molecule: np.random.seed(seed * 100000 +
    graph id), so each molecule keeps one sign choice for the whole run.
    num_workers is 0 (their yaml: 4); the torch RNG stream of the main process
    (sampler shuffles, dropout, the model's PE sign flips) is the same either
    way: every DataLoader iterator draws its base seed in the main process.
  * The model's own random PE sign flip (models.layers.PE_layer.sign_fliper,
    torch RNG, one sign per PE column per batch) is kept as they have it, in
    training AND in eval, so val/test RMSE carry that randomness.
  * wandb is not installed: a stub module satisfies their imports; nothing is
    logged to wandb. tqdm bars are off unless --progress (TQDM_DISABLE).
  * ogb 1.3.6 calls torch.load(processed file) without weights_only; torch
    >= 2.6 defaults to weights_only=True, so PyG's Data classes are added to
    torch's safe globals (the file is the one OGB's own process() just wrote).
  * OGB's dataset is read from a copy of the project's shared data
    (../shared/data/ogbg_molesol: raw/, split/, mapping/, OGB's download
    layout) in --ogb-root, with a RELEASE_v1.txt marker so ogb does not ask to
    re-download; nothing is downloaded.

Outputs in --out (default results/pytorch-import/molesol-authors-seed0), each
written atomically (temporary file + rename):
  config.yaml    the configuration, nested like their config/config.yaml
  metrics.jsonl  one line per epoch: epoch, train_loss (mean of the epoch's
                 batch losses, as they log it), val, test (OGB RMSE), lr,
                 seconds (train + val + test of that epoch)
  best.pt        torch.save(model.state_dict()) at the best-val epoch
  summary.json   best_epoch, best_val, test_at_best_val, epochs, median
                 seconds per epoch, versions, authors commit
  checkpoint.pt  model, optimizer, scheduler, epoch, best metrics, RNG states
                 (torch, numpy, python), written after every epoch; --resume
                 continues from it (bit-identical to an uninterrupted run)
  README.md      how it was made

Run (from the project root):

    /work/runs/venv-pyg/bin/python scripts/authors-train.py \\
        --authors /tmp/subgraphormer-authors \\
        --authors-commit f9c087e59e7549df9fc740e2aee0a7b922a95681
"""

import argparse
import copy
import importlib.util
import json
import os
import random
import shutil
import socket
import statistics
import sys
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
AUTHORS_COMMIT = "f9c087e59e7549df9fc740e2aee0a7b922a95681"
DATASET = "ogbg-molesol"


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--authors", default="/tmp/subgraphormer-authors",
                   help="checkout of github.com/BarSGuy/Subgraphormer")
    p.add_argument("--authors-commit", default=AUTHORS_COMMIT,
                   help="commit of that checkout (recorded)")
    p.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data"),
                   help="the shared data folder (default ../shared/data)")
    p.add_argument("--ogb-root", default="/work/runs/authors-molesol-data",
                   help="where OGB's dataset folder ogbg_molesol/ (a copy of the "
                        "shared data plus OGB's processed/ cache) lives")
    p.add_argument("--out", default=os.path.join(
        ROOT, "results", "pytorch-import", "molesol-authors-seed0"))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--epochs", type=int, default=100)
    p.add_argument("--threads", type=int, default=1,
                   help="torch.set_num_threads (default 1: on this 2-core "
                        "machine shared with other jobs, 2 threads measured "
                        "169 s per epoch against 19 s for 1)")
    p.add_argument("--resume", action="store_true",
                   help="continue from OUT/checkpoint.pt")
    p.add_argument("--subset", type=int, default=0,
                   help="smoke tests only: keep the first N graphs of each split")
    p.add_argument("--stop-after", type=int, default=0,
                   help="stop after this many epochs in this invocation "
                        "(to test --resume); 0: run to --epochs")
    p.add_argument("--progress", action="store_true",
                   help="show their tqdm progress bars")
    return p.parse_args(argv)


ARGS = parse_args()
if not ARGS.progress:
    # tqdm reads TQDM_* at import (envwrap); their loops make a bar per loader.
    os.environ["TQDM_DISABLE"] = "1"

# Their utils/training.py and utils/my_logging.py import wandb (only used by
# log_wandb / set_wandb, which this script does not call).
try:
    import wandb  # noqa: F401
except ImportError:
    sys.modules["wandb"] = types.ModuleType("wandb")


def _load_fixtures_module():
    path = os.path.join(HERE, "pytorch-fixtures.py")
    spec = importlib.util.spec_from_file_location("pytorch_fixtures", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


fx = _load_fixtures_module()  # stubs ogb's version check; imports torch, PyG

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch_geometric  # noqa: E402


# ------------------------------------------------------------------ config ---

def recipe_config(seed, epochs):
    """The run's configuration, nested like their config/config.yaml."""
    return {
        "general": {"seed": seed, "device": "cpu"},
        "data": {
            "name": DATASET,
            "bs": 32,
            "num_workers": 0,
            "preprocess": {"max_dis": 5},
            "sampling": {"keep_subgraph_prob": 1, "average_res_over": 1},
        },
        "model": {
            "model_name": "Subgraphormer_PE",
            "num_layer": 3,
            "dim_embed": 60,
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
        },
        # patience: their config/config.yaml's (the sweep leaves it); unused
        # by ogbg-molesol's ConstantLR.
        "training": {"lr": 0.001, "wd": 0, "epochs": epochs, "patience": 40},
    }


# --------------------------------------------------------------- file i/o ---

def _tmp(path):
    return f"{path}.tmp.{os.getpid()}"


def write_text(path, text):
    tmp = _tmp(path)
    with open(tmp, "w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def write_json(path, obj):
    write_text(path, json.dumps(obj, indent=2, allow_nan=False) + "\n")


def write_torch(path, obj):
    tmp = _tmp(path)
    torch.save(obj, tmp)
    with open(tmp, "rb") as f:
        os.fsync(f.fileno())
    os.replace(tmp, path)


# -------------------------------------------------------------------- data ---

OGB_FILES = ("raw/edge.csv.gz", "raw/edge-feat.csv.gz", "raw/node-feat.csv.gz",
             "raw/num-node-list.csv.gz", "raw/num-edge-list.csv.gz",
             "raw/graph-label.csv.gz", "split/scaffold/train.csv.gz",
             "split/scaffold/valid.csv.gz", "split/scaffold/test.csv.gz",
             "mapping/mol.csv.gz", "mapping/README.md")


def prepare_ogb_root(shared, ogb_root):
    """OGB's folder layout for PygGraphPropPredDataset, from the shared copy.

    The shared folder holds exactly OGB's download (raw/, split/, mapping/);
    OGB also wants a RELEASE_v1.txt (else it asks whether to re-download) and
    writes processed/ next to raw/, so it gets its own copy here.
    """
    import filecmp
    src = os.path.join(shared, "ogbg_molesol")
    dst = os.path.join(ogb_root, "ogbg_molesol")
    ok = os.path.isfile(os.path.join(dst, "RELEASE_v1.txt")) and all(
        os.path.isfile(os.path.join(dst, f))
        and filecmp.cmp(os.path.join(src, f), os.path.join(dst, f), shallow=False)
        for f in OGB_FILES)
    if ok:
        return
    for f in OGB_FILES:
        if not os.path.isfile(os.path.join(src, f)):
            sys.exit(f"--data {shared}: no ogbg_molesol/{f}")
    os.makedirs(ogb_root, exist_ok=True)
    tmp = dst + f".tmp.{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    for f in OGB_FILES:
        os.makedirs(os.path.dirname(os.path.join(tmp, f)), exist_ok=True)
        shutil.copyfile(os.path.join(src, f), os.path.join(tmp, f))
    with open(os.path.join(tmp, "RELEASE_v1.txt"), "w") as f:
        f.write("copied from the project's shared data (OGB's download layout)\n")
    shutil.rmtree(dst, ignore_errors=True)
    os.replace(tmp, dst)


def allow_pyg_in_torch_load():
    """ogb 1.3.6 torch.load()s its processed file with torch's default
    weights_only, True since torch 2.6; allow PyG's Data classes."""
    from torch_geometric.data.data import DataEdgeAttr, DataTensorAttr
    from torch_geometric.data.storage import GlobalStorage
    torch.serialization.add_safe_globals([DataEdgeAttr, DataTensorAttr, GlobalStorage])


def build_loaders(authors, u_data, cfg, seed, subset):
    """Their get_ogb_dataloader, with their transform applied once per graph.

    Returns (loaders, split_info). Each loader is a DataLoader of the same
    class, batch size and shuffling as theirs over the transformed graphs.
    """
    from torch.utils.data import RandomSampler
    loaders, n_tasks = u_data.get_ogb_dataloader(
        cfg=cfg, transform_suffix="", transforms=None)
    assert n_tasks == cfg.model.final_dim, (n_tasks, cfg.model.final_dim)
    transform = authors.prep.subgraph_construction(cfg)
    out, info = {}, {}
    for name, loader in loaders.items():
        ds = loader.dataset
        ids = [int(i) for i in ds.indices()]
        if subset:
            ids = ids[:subset]
        t0 = time.time()
        items = []
        for pos, gid in enumerate(ids):
            g = ds[pos]
            assert g.num_nodes > 0
            # Their sign flip of the eigenvectors (utils/preprocess.py
            # sign_fliper) draws from numpy's global RNG.
            np.random.seed(seed * 100000 + gid)
            items.append(transform(g))
        shuffle = isinstance(loader.sampler, RandomSampler)
        assert shuffle == (name == "train")
        out[name] = type(loader)(items, batch_size=loader.batch_size,
                                 shuffle=shuffle, num_workers=0)
        info[name] = {"graphs": len(items), "batch_size": loader.batch_size,
                      "shuffle": shuffle, "first_ids": ids[:5],
                      "preprocess_seconds": round(time.time() - t0, 3)}
    return out, info


def their_sched(u_train, cfg, optim):
    """Their get_sched_func. It builds the schedulers of every data set (a
    dict) and returns ogbg-molesol's ConstantLR(factor=1, total_iters=0); the
    zinc ones pass ReduceLROnPlateau(verbose=True), an argument torch >= 2.7
    no longer has. While it runs, ReduceLROnPlateau drops `verbose` (it only
    printed lr changes); the returned scheduler is untouched."""
    cls = torch.optim.lr_scheduler.ReduceLROnPlateau
    orig = cls.__init__
    import inspect
    if "verbose" in inspect.signature(orig).parameters:
        return u_train.get_sched_func(cfg=cfg, optim=optim), False

    def init(self, *a, verbose=None, **kw):
        orig(self, *a, **kw)

    cls.__init__ = init
    try:
        return u_train.get_sched_func(cfg=cfg, optim=optim), True
    finally:
        cls.__init__ = orig


# -------------------------------------------------------------------- main ---

def rng_state():
    return {"torch": torch.get_rng_state(), "numpy": np.random.get_state(),
            "python": random.getstate()}


def set_rng_state(s):
    torch.set_rng_state(s["torch"])
    np.random.set_state(s["numpy"])
    random.setstate(s["python"])


def command_line():
    exe = sys.executable
    script = os.path.relpath(os.path.abspath(sys.argv[0]), os.getcwd())
    return " ".join([exe, script] + sys.argv[1:])


def readme(out, invocations, summary):
    lines = [
        "# Authors' Subgraphormer + PE on ogbg-molesol, seed "
        f"{summary['seed']}",
        "",
        "Trained with the authors' own PyTorch code (BarSGuy/Subgraphormer "
        f"@ {summary['authors_commit']}) by `scripts/authors-train.py` "
        "(see its docstring for what differs from their main.py: CPU, the "
        "transform precomputed once per molecule, no wandb), on OGB's "
        "scaffold split of ogbg-molesol read from ../shared/data, with the "
        "paper's full-bag molesol recipe (yamls/molesol_deterministic.yaml "
        "grid): see config.yaml.",
        "",
        "Made from the project root with:",
        "",
    ]
    for inv in invocations:
        lines.append(f"    {inv['command']}")
        lines.append(f"    # {inv['when']} on {inv['host']}, starting at epoch "
                     f"{inv['start_epoch']}; torch {summary['torch']}, "
                     f"torch_geometric {summary['torch_geometric']}, "
                     f"ogb {summary['ogb']}")
    lines += [
        "",
        f"Epochs done: {summary['epochs_done']} of {summary['epochs']}; "
        f"best val RMSE {summary['best_val']} at epoch {summary['best_epoch']} "
        f"(0-based), test RMSE there {summary['test_at_best_val']} (best.pt is "
        "that epoch's state_dict). Per-epoch numbers: metrics.jsonl.",
        "Eval keeps their random PE sign flip (models/layers.py PE_layer), "
        "so val/test RMSE are noisy by that much.",
        "",
    ]
    write_text(os.path.join(out, "README.md"), "\n".join(lines))


def main():
    args = ARGS
    import yaml
    torch.set_num_threads(args.threads)
    os.makedirs(args.out, exist_ok=True)
    ckpt_path = os.path.join(args.out, "checkpoint.pt")
    if os.path.exists(ckpt_path) and not args.resume:
        sys.exit(f"{ckpt_path} exists: pass --resume to continue it, or "
                 "remove the folder's files to start again")

    authors = fx.Authors(args.authors)
    import utils.data as u_data
    import utils.training as u_train
    import utils.my_logging as u_log
    import utils.assertions as u_assert
    u_log.setup_logging()

    plain = recipe_config(args.seed, args.epochs)
    cfg = authors.cfg(plain)
    cfg.data.dir = args.ogb_root  # their main.py: "./datasets/" + name
    u_assert.general_assertions(args=cfg)

    prepare_ogb_root(args.data, args.ogb_root)
    allow_pyg_in_torch_load()
    device = torch.device("cpu")

    # main.py: torch.manual_seed, then the data, then the model. Building the
    # data does not touch torch's RNG (their transform uses numpy's).
    torch.manual_seed(cfg.general.seed)
    t0 = time.time()
    loaders, split_info = build_loaders(authors, u_data, cfg, args.seed, args.subset)
    print(f"data: {json.dumps(split_info)} ({time.time() - t0:.1f} s)", flush=True)
    torch.manual_seed(cfg.general.seed)
    model = authors.model(cfg)
    total, unused, used = authors.sub.get_model_params(
        model=model, dim_embed=cfg.model.dim_embed)
    model = model.to(device)

    critn, goal, task = u_train.get_loss_func(cfg=cfg)
    optim = u_train.get_optim_func(cfg=cfg, model=model)
    sched, sched_patched = their_sched(u_train, cfg, optim)
    assert isinstance(sched, torch.optim.lr_scheduler.ConstantLR), sched
    evaluator = u_train.get_evaluator(cfg=cfg)
    best_metrics = u_log.initialize_best_metrics(goal=goal)

    versions = {
        "authors_commit": args.authors_commit,
        "torch": torch.__version__,
        "torch_geometric": torch_geometric.__version__,
        "ogb": __import__("ogb").__version__,
        "numpy": np.__version__,
        "python": sys.version.split()[0],
    }
    invocation = {"command": command_line(), "host": socket.gethostname(),
                  "when": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    records, invocations, start = [], [], 0
    if args.resume and os.path.exists(ckpt_path):
        ck = torch.load(ckpt_path, map_location="cpu", weights_only=False)
        if ck["config"] != plain or ck["subset"] != args.subset:
            sys.exit(f"{ckpt_path}: made with another configuration "
                     f"({ck['config']}, subset {ck['subset']})")
        model.load_state_dict(ck["model"])
        optim.load_state_dict(ck["optimizer"])
        sched.load_state_dict(ck["scheduler"])
        best_metrics = ck["best_metrics"]
        records = ck["records"]
        invocations = ck["invocations"]
        start = ck["epoch"] + 1
        set_rng_state(ck["rng"])
        print(f"resumed from {ckpt_path} after epoch {ck['epoch']}", flush=True)
    invocation["start_epoch"] = start
    invocations.append(invocation)

    with open(os.path.join(args.out, "config.yaml.tmp"), "w") as f:
        yaml.safe_dump(plain, f, sort_keys=False, default_flow_style=None)
    os.replace(os.path.join(args.out, "config.yaml.tmp"),
               os.path.join(args.out, "config.yaml"))

    def summary(done):
        secs = [r["seconds"] for r in records]
        return {
            "dataset": DATASET,
            "seed": args.seed,
            "complete": done,
            "epochs": args.epochs,
            "epochs_done": len(records),
            "best_epoch": best_metrics["epoch"],
            "best_val": float(best_metrics["val_loss"]) if records else None,
            "test_at_best_val": float(best_metrics["test_loss"]) if records else None,
            "metric": "rmse (OGB Evaluator)",
            "epoch_numbering": "0-based, as their main.py",
            "seconds_per_epoch_median": statistics.median(secs) if secs else None,
            "threads": args.threads,
            "device": "cpu",
            "params": {"total": total, "unused": unused, "used": used},
            "splits": split_info,
            "subset": args.subset,
            "pe_sign_seed": "np.random.seed(seed * 100000 + OGB graph id) before "
                            "their transform, once per molecule",
            "eval_pe_sign_flip": "kept (theirs: PE_layer.sign_fliper, torch RNG)",
            "gat_return_patched": authors.patched_gat_return,
            "plateau_verbose_dropped": sched_patched,
            **versions,
        }

    def write_outputs(done):
        write_text(os.path.join(args.out, "metrics.jsonl"),
                   "".join(json.dumps(r) + "\n" for r in records))
        s = summary(done)
        write_json(os.path.join(args.out, "summary.json"), s)
        readme(args.out, invocations, s)

    write_outputs(start >= args.epochs)
    for epoch in range(start, args.epochs):
        if args.stop_after and epoch - start >= args.stop_after:
            print(f"stopping after {args.stop_after} epochs (--stop-after)", flush=True)
            return
        t0 = time.time()
        loss_list = u_train.train_loop(
            model=model, loader=loaders["train"], critn=critn, optim=optim,
            epoch=epoch, device=device, task=task)
        avg = cfg.data.sampling.average_res_over
        val_metric = u_train.eval_loop(
            model=model, loader=loaders["val"], eval=evaluator, device=device,
            average_over=avg, task=task)
        test_metric = u_train.eval_loop(
            model=model, loader=loaders["test"], eval=evaluator, device=device,
            average_over=avg, task=task)
        seconds = time.time() - t0
        prev_best = best_metrics["epoch"]
        best_metrics = u_log.update_best_metrics(
            best_metrics=best_metrics, val_metric=val_metric,
            test_metric=test_metric, epoch=epoch, goal=goal)
        lr = optim.param_groups[0]["lr"]
        if best_metrics["epoch"] != prev_best:
            write_torch(os.path.join(args.out, "best.pt"), model.state_dict())
        u_train.sched_step(cfg=cfg, sched=sched, val_metric=val_metric)
        records.append({"epoch": epoch, "train_loss": float(np.mean(loss_list)),
                        "val": float(val_metric), "test": float(test_metric),
                        "lr": lr, "seconds": round(seconds, 3)})
        write_outputs(epoch + 1 >= args.epochs)
        write_torch(ckpt_path, {
            "epoch": epoch, "config": plain, "subset": args.subset,
            "model": model.state_dict(), "optimizer": optim.state_dict(),
            "scheduler": sched.state_dict(), "best_metrics": best_metrics,
            "records": records, "invocations": invocations, "rng": rng_state(),
        })
        print(f"epoch {epoch}: train_loss {records[-1]['train_loss']:.4f} "
              f"val {val_metric:.4f} test {test_metric:.4f} "
              f"(best val {best_metrics['val_loss']:.4f} @ {best_metrics['epoch']}, "
              f"test there {best_metrics['test_loss']:.4f}) {seconds:.1f} s",
              flush=True)
    print(json.dumps(summary(True)), flush=True)


if __name__ == "__main__":
    main()
