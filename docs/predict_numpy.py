"""GraphSAGE-mean inference with NumPy alone on a gnnstream model export (--model-out).

Reads manifest.json and the .npy tensors of an export and a dataset folder (nodes.jsonl +
edges.csv, see data/cora/README.md), runs the forward pass over every vertex's evaluation
neighbourhood (z = h W_root + mean over in-neighbours of h W_neigh + b, ReLU between layers; an
edge "src,dst" means dst aggregates from src; no in-neighbours give a zero mean; a vertex with more
in-neighbours than the eval fanout, the export's or --eval-fanout, aggregates those of smallest
rank, as the job does) and prints the prediction of one vertex. With --compare it also reports the
largest difference of the class probabilities from a predictions file (JSON lines as written by
`gnnstream predict` or the job's --predictions-out; the last line of an id counts) and exits
non-zero when it exceeds --tolerance (1e-4). Feature rows are divided by their sums or kept as the
export's manifest records (config.featureNormalization); for an export without it, or with
--normalize-features auto, they are divided when no row of the dataset has a negative feature,
decided once for the dataset as the job decides it.

    python3 docs/predict_numpy.py --model work/model --dataset data/cora --id 0 \
        [--compare predictions.jsonl [--tolerance T]] [--normalize-features auto|true|false] [--eval-fanout N]
"""
import argparse
import json
import os

import numpy as np


def load_model(path):
    with open(os.path.join(path, "manifest.json")) as f:
        manifest = json.load(f)
    config = manifest["config"]
    if config.get("model", "sage") != "sage":
        raise SystemExit("model type %s is not GraphSAGE-mean" % config["model"])
    tensors = {p["name"]: np.load(os.path.join(path, p["file"])) for p in manifest["parameters"]}
    layers = [tuple(tensors["layers.%d.%s" % (j, k)].astype(np.float64)
                    for k in ("lin_root.weight", "lin_neigh.weight", "bias"))
              for j in range(config["numLayers"])]
    normalization = {"sum": "true", "none": "false"}.get(config.get("featureNormalization"), "auto")
    return layers, manifest["step"], config.get("evalFanout", 4096), normalization


def load_dataset(path, normalize):
    """normalize: "true", "false" or "auto" (true when no row has a negative feature)."""
    index, features, labels = {}, [], []
    with open(os.path.join(path, "nodes.jsonl")) as f:
        for line in f:
            if line.strip():
                node = json.loads(line)
                x = np.asarray(node["features"], dtype=np.float32)
                v = index.setdefault(node["id"], len(index))  # a repeated id keeps its row, last line wins
                features[v:v + 1], labels[v:v + 1] = [x], [node.get("label")]
    if normalize == "auto":  # decided once for the dataset, as the job's --normalize-features auto
        normalize = "false" if any((x < 0).any() for x in features) else "true"
    for v, x in enumerate(features):
        x = x.astype(np.float64)
        if normalize == "true" and x.sum() > 0:  # divided as the job divides, rounded to float32
            x = (x / x.sum()).astype(np.float32).astype(np.float64)
        features[v] = x
    src, dst = [], []
    with open(os.path.join(path, "edges.csv")) as f:
        for line in f:
            cols = line.strip().split(",")
            if len(cols) < 2 or (len(cols) > 2 and cols[2].strip() in ("-", "remove")):
                continue
            s, d = int(cols[0]), int(cols[1])
            if s in index and d in index:  # an edge naming a vertex without a node line is skipped
                src.append(index[s])
                dst.append(index[d])
    return index, np.stack(features), labels, np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64)


def mix64(z):
    """SplitMix64's finaliser on uint64 arrays (gnnstream's Mix.mix64)."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def rank(v, u):
    """rank(v, u) of vertex ids, a signed 64-bit number as the job compares it (EvalNeighbourhood)."""
    with np.errstate(over="ignore"):
        return mix64(mix64(v.astype(np.uint64)) + u.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)).view(np.int64)


def eval_neighbourhoods(ids, src, dst, fanout):
    """The edges each vertex aggregates: all its in-edges up to fanout (-1: all), else the fanout
    in-neighbours of smallest rank(dst id, src id), ties by the smaller id."""
    degree = np.bincount(dst, minlength=len(ids))
    if fanout < 0 or degree.max(initial=0) <= fanout:
        return src, dst
    into_hub = degree[dst] > fanout
    hs, hd = src[into_hub], dst[into_hub]
    order = np.lexsort((ids[hs], rank(ids[hd], ids[hs]), hd))
    hs, hd = hs[order], hd[order]
    first = np.searchsorted(hd, hd)  # position of each edge's destination group
    keep = np.arange(len(hd)) - first < fanout
    return np.concatenate([src[~into_hub], hs[keep]]), np.concatenate([dst[~into_hub], hd[keep]])


def forward(layers, h, src, dst):
    degree = np.bincount(dst, minlength=h.shape[0]).astype(np.float64)[:, None]
    for j, (w_root, w_neigh, b) in enumerate(layers):
        neigh = np.zeros((h.shape[0], w_neigh.shape[1]))
        np.add.at(neigh, dst, h[src] @ w_neigh)  # mean(h_nbrs) W = mean(h_nbrs W)
        h = h @ w_root + neigh / np.maximum(degree, 1) + b
        if j < len(layers) - 1:
            h = np.maximum(h, 0)
    z = np.exp(h - h.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", required=True, help="export folder (manifest.json + .npy)")
    parser.add_argument("--dataset", required=True, help="folder with nodes.jsonl and edges.csv")
    parser.add_argument("--id", type=int, default=0, help="vertex id to print")
    parser.add_argument("--compare", help="predictions file (JSON lines) to compare with")
    parser.add_argument("--normalize-features", choices=("auto", "true", "false"),
                        help="row normalisation (default: the export's, else auto)")
    parser.add_argument("--eval-fanout", type=int, help="in-neighbours per vertex (default: the export's)")
    parser.add_argument("--tolerance", type=float, default=1e-4, help="largest probability difference allowed")
    args = parser.parse_args()
    layers, step, fanout, normalization = load_model(args.model)
    index, x, labels, src, dst = load_dataset(args.dataset, args.normalize_features or normalization)
    ids = np.zeros(len(index), dtype=np.int64)
    ids[list(index.values())] = list(index.keys())
    src, dst = eval_neighbourhoods(ids, src, dst, fanout if args.eval_fanout is None else args.eval_fanout)
    probs = forward(layers, x, src, dst)
    if args.id not in index:
        raise SystemExit("no vertex %d in %s" % (args.id, args.dataset))
    v = index[args.id]
    print("vertex %d (label %s): predicted %d, model step %d" % (args.id, labels[v], probs[v].argmax(), step))
    print("probs " + " ".join("%.6f" % p for p in probs[v]))
    if args.compare:
        with open(args.compare) as f:  # the last line of an id wins
            lines = {r["id"]: r for r in (json.loads(line) for line in f if line.strip())}
        unknown = [i for i in lines if i not in index]
        if unknown:
            raise SystemExit("%s has %d ids not in the dataset, e.g. %d" % (args.compare, len(unknown), unknown[0]))
        rows = [index[i] for i in lines]
        theirs = np.array([lines[i]["probs"] for i in lines], dtype=np.float64)
        diff = np.abs(theirs - probs[rows]).max()
        same = sum(lines[i]["label"] == probs[index[i]].argmax() for i in lines)
        print("compared %d vertices of %s (steps %s): max |probs difference| %.3g, same label for %d"
              % (len(lines), args.compare, sorted({r["step"] for r in lines.values()}), diff, same))
        if diff > args.tolerance:
            raise SystemExit("the probabilities differ by more than %g" % args.tolerance)


if __name__ == "__main__":
    main()
