"""Loads a gnnstream model export (--model-out) into torch_geometric.nn's own classes.

The export's pyg/ folder holds a state_dict of PyG's GraphSAGE, GCN or GAT (one .npy per key)
and a manifest with the class and its constructor arguments; where no BasicGNN class builds the
model (GAT whose last layer has another head count) the manifest's convs are stacked here with the
same keys. The script reads a dataset folder (nodes.jsonl + edges.csv, see
data/cora/README.md) with docs/predict_numpy.py's reader (features normalised as the manifest
records; a vertex with more in-neighbours than the export's evalFanout aggregates those of
smallest rank), runs full-neighbour inference in float64 and, with --compare, reports the largest
difference of the class probabilities from a predictions file (JSON lines of `gnnstream predict`);
it exits non-zero when that exceeds --tolerance or a predicted class differs beyond a tie within
it. A GCN runs as GCNConv(normalize=False) with a self loop per vertex and edge weights: 1/(s+1)
on each of a vertex's s in-edges and on its self loop ("mean"), or 1/sqrt(d_i d_u) with d = s+1
("sym", 1/d_i on the self loop).

    python docs/load_in_pyg.py --model work/model --dataset data/cora --compare predictions.jsonl
"""
import argparse
import json
import os
import sys

import numpy as np
import torch
import torch_geometric.nn as pyg_nn
from torch_geometric.nn.resolver import activation_resolver

from predict_numpy import eval_neighbourhoods, load_dataset


class ConvStack(torch.nn.Module):
    """The manifest's convs with its activation between them, as BasicGNN runs them."""

    def __init__(self, manifest):
        super().__init__()
        self.convs = torch.nn.ModuleList(getattr(pyg_nn, c["class"])(**c["kwargs"]) for c in manifest["convs"])
        self.act = activation_resolver(manifest["act"])

    def forward(self, x, edge_index, edge_weight=None):
        for j, conv in enumerate(self.convs):
            x = conv(x, edge_index) if edge_weight is None else conv(x, edge_index, edge_weight)
            if j < len(self.convs) - 1:
                x = self.act(x)
        return x


def load_model(path):
    """The PyG model of an export folder, its state_dict loaded strictly, and the pyg manifest."""
    folder = os.path.join(path, "pyg")
    with open(os.path.join(folder, "manifest.json")) as f:
        manifest = json.load(f)
    if manifest["class"]:
        model = getattr(pyg_nn.models, manifest["class"])(**manifest["kwargs"])
    else:
        model = ConvStack(manifest)
    state = {t["name"]: torch.from_numpy(np.load(os.path.join(folder, t["file"]))) for t in manifest["tensors"]}
    model.load_state_dict(state, strict=True)
    return model.double().eval(), manifest


def gcn_edges(src, dst, n, norm):
    """The edges plus a self loop per vertex, and their weights under norm ("mean" or "sym")."""
    d = np.bincount(dst, minlength=n).astype(np.float64) + 1  # in-degree with the self loop
    loops = np.arange(n)
    src, dst = np.concatenate([src, loops]), np.concatenate([dst, loops])
    weight = 1 / d[dst] if norm == "mean" else 1 / np.sqrt(d[src] * d[dst])
    return src, dst, torch.from_numpy(weight)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", required=True, help="export folder (with its pyg/ folder)")
    parser.add_argument("--dataset", required=True, help="folder with nodes.jsonl and edges.csv")
    parser.add_argument("--compare", help="predictions file (JSON lines) to compare with")
    parser.add_argument("--tolerance", type=float, default=1e-4, help="largest probability difference allowed")
    args = parser.parse_args()
    model, manifest = load_model(args.model)
    normalization = {"sum": "true", "none": "false"}.get(manifest.get("featureNormalization"), "auto")
    index, x, labels, src, dst = load_dataset(args.dataset, normalization)
    ids = np.zeros(len(index), dtype=np.int64)
    ids[list(index.values())] = list(index.keys())
    src, dst = eval_neighbourhoods(ids, src, dst, manifest["evalFanout"])
    weight = None
    if manifest["edgeWeights"]:
        src, dst, weight = gcn_edges(src, dst, len(ids), manifest["edgeWeights"])
    edge_index = torch.from_numpy(np.stack([src, dst]))
    with torch.no_grad():
        probs = torch.softmax(model(torch.from_numpy(x), edge_index, weight), dim=1).numpy()
    print("%s (%s) at step %d on %d vertices, %d edges"
          % (manifest["class"] or manifest["convs"][0]["class"] + " stack", manifest["model"], manifest["step"], len(ids), len(src)))
    if not args.compare:
        return
    with open(args.compare) as f:  # the last line of an id wins
        lines = {r["id"]: r for r in (json.loads(line) for line in f if line.strip())}
    missing = [i for i in lines if i not in index]
    if missing:
        sys.exit("%s has %d ids not in the dataset, e.g. %d" % (args.compare, len(missing), missing[0]))
    rows = np.array([index[i] for i in lines])
    theirs = np.array([lines[i]["probs"] for i in lines], dtype=np.float64)
    diff = np.abs(theirs - probs[rows]).max()
    ours = probs[rows]
    label = np.array([lines[i]["label"] for i in lines])
    best = ours.argmax(axis=1)  # another label counts unless the two classes tie within the tolerance
    other = int((ours[np.arange(len(rows)), best] - ours[np.arange(len(rows)), label] > args.tolerance).sum())
    print("compared %d vertices of %s: max |probs difference| %.3g, %d other labels"
          % (len(lines), args.compare, diff, other))
    if diff > args.tolerance or other:
        sys.exit("the PyG model differs from %s" % args.compare)


if __name__ == "__main__":
    main()
