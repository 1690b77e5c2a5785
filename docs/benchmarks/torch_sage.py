#!/usr/bin/env python3
"""Plain-PyTorch GraphSAGE (mean) training step on a batch exported by `bench train`.

The peer that `bin/gnnstream bench train` runs in the same invocation: the same batch (its CSR
blocks, features and labels, written by the benchmark), the same model (2 layers of
h_dst W_root + mean(h_nbrs) W_neigh + b, ReLU and dropout 0.5 between layers and on the input,
softmax cross-entropy over the seeds, Adam with lr 0.003), forward + backward + update per step.
Prints one JSON object: seeds/s per measured step and the torch version. Needs only torch (Debian:
python3-torch); no PyG.

With --device cuda (or cuda:N; `bin/gnnstream gpu check` runs it so, next to gnnstream's CUDA
backend) the model and Adam live on the GPU, while the batch stays in pinned host memory and is
uploaded in every step, inside the timed region, as gnnstream's trainer uploads its batches: the
features, labels and each hop's sparse mean matrix go up with .to(device, non_blocking=True), and
the clock is read after torch.cuda.synchronize(). The JSON object then also holds the device, its
name (torch.cuda.get_device_name()) and the median of the per-step seeds/s. The default --device
cpu runs and prints exactly as before.

Batch file (little-endian): int32 L, F, C; int32 nodeCounts[L+1]; per hop h = 1..L: int32 nnz,
int32 indptr[nodeCounts[h-1] + 1], int32 indices[nnz]; int32 labels[nodeCounts[0]];
float32 features[nodeCounts[L] * F].
"""
import argparse
import json
import statistics
import sys
import time

import numpy as np
import torch


def read_batch(path):
    raw = open(path, "rb").read()
    pos = 0

    def ints(n):
        nonlocal pos
        a = np.frombuffer(raw, dtype="<i4", count=n, offset=pos)
        pos += 4 * n
        return a

    layers, features, classes = (int(x) for x in ints(3))
    counts = [int(x) for x in ints(layers + 1)]
    hops = []
    for h in range(1, layers + 1):
        nnz = int(ints(1)[0])
        indptr = ints(counts[h - 1] + 1)
        indices = ints(nnz)
        deg = np.diff(indptr)
        dst = np.repeat(np.arange(counts[h - 1], dtype=np.int64), deg)
        # The mean over each destination's sampled in-neighbours as a sparse matrix (the
        # neighbourhood mean of PyG's SAGEConv), so one sparse-dense product aggregates a hop.
        weights = np.repeat(1.0 / np.maximum(deg, 1), deg).astype(np.float32)
        mean = torch.sparse_coo_tensor(
            torch.from_numpy(np.stack([dst, indices.astype(np.int64)])),
            torch.from_numpy(weights),
            (counts[h - 1], counts[h]),
        ).coalesce()
        hops.append(mean)
    labels = torch.from_numpy(ints(counts[0]).astype(np.int64))
    x = np.frombuffer(raw, dtype="<f4", count=counts[layers] * features, offset=pos)
    x = torch.from_numpy(x.copy()).view(counts[layers], features)
    return layers, features, classes, counts, hops, labels, x


class Sage(torch.nn.Module):
    def __init__(self, dims):
        super().__init__()
        self.root = torch.nn.ModuleList(
            torch.nn.Linear(a, b, bias=True) for a, b in zip(dims, dims[1:])
        )
        self.neigh = torch.nn.ModuleList(
            torch.nn.Linear(a, b, bias=False) for a, b in zip(dims, dims[1:])
        )

    def forward(self, x, counts, hops):
        h = x
        layers = len(self.root)
        for j in range(layers):
            hop = layers - j
            mean = hops[hop - 1]
            n_dst = counts[hop - 1]
            h = torch.nn.functional.dropout(h, 0.5, self.training)
            h = self.root[j](h[:n_dst]) + self.neigh[j](torch.sparse.mm(mean, h))
            if j < layers - 1:
                h = torch.relu(h)
        return h


class PinnedBlock:
    """One hop's sparse mean matrix in pinned host memory, uploaded on demand."""

    def __init__(self, mean):
        try:
            # Pinned sparse tensors need torch >= 2.5; before that, pin the parts and rebuild.
            self.sparse = mean.pin_memory()
            self.parts = None
        except (RuntimeError, NotImplementedError):
            self.sparse = None
            self.parts = (mean.indices().pin_memory(), mean.values().pin_memory(), mean.shape)

    def to(self, device):
        if self.sparse is not None:
            return self.sparse.to(device, non_blocking=True)
        indices, values, shape = self.parts
        return torch.sparse_coo_tensor(
            indices.to(device, non_blocking=True), values.to(device, non_blocking=True), shape
        )._coalesced_(True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--batch", required=True)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--steps", type=int, default=50)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--device", default="cpu", help="cpu (default), cuda or cuda:N")
    a = p.parse_args()
    if a.device != "cpu" and a.device != "cuda" and not a.device.startswith("cuda:"):
        p.error("--device must be cpu, cuda or cuda:N, got " + a.device)
    torch.set_num_threads(a.threads)
    torch.manual_seed(1)
    layers, features, classes, counts, hops, labels, x = read_batch(a.batch)
    dims = [features] + [a.hidden] * (layers - 1) + [classes]
    model = Sage(dims)
    if a.device != "cpu":
        train_cuda(a, model, counts, hops, labels, x)
        return
    opt = torch.optim.Adam(model.parameters(), lr=0.003)
    model.train()
    rates = []
    for i in range(a.warmup + a.steps):
        start = time.perf_counter()
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x, counts, hops), labels)
        loss.backward()
        opt.step()
        wall = time.perf_counter() - start
        if i >= a.warmup:
            rates.append(counts[0] / wall)
    json.dump({"torch": torch.__version__, "threads": a.threads, "seeds_per_s": rates}, sys.stdout)
    print()


def train_cuda(a, model, counts, hops, labels, x):
    """The steps on the GPU, the batch uploaded from pinned memory in each (see the docstring)."""
    if not torch.cuda.is_available():
        sys.exit("torch_sage.py: --device %s: torch sees no CUDA device" % a.device)
    device = torch.device(a.device)
    x = x.pin_memory()
    labels = labels.pin_memory()
    blocks = [PinnedBlock(mean) for mean in hops]
    model = model.to(device)
    opt = torch.optim.Adam(model.parameters(), lr=0.003)
    model.train()
    rates = []
    for i in range(a.warmup + a.steps):
        torch.cuda.synchronize(device)
        start = time.perf_counter()
        x_dev = x.to(device, non_blocking=True)
        labels_dev = labels.to(device, non_blocking=True)
        hops_dev = [b.to(device) for b in blocks]
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x_dev, counts, hops_dev), labels_dev)
        loss.backward()
        opt.step()
        torch.cuda.synchronize(device)
        wall = time.perf_counter() - start
        if i >= a.warmup:
            rates.append(counts[0] / wall)
    json.dump(
        {
            "torch": torch.__version__,
            "threads": a.threads,
            "device": str(device),
            "device_name": torch.cuda.get_device_name(device),
            "pinned_sparse": all(b.sparse is not None for b in blocks),
            "median_seeds_per_s": statistics.median(rates),
            "seeds_per_s": rates,
        },
        sys.stdout,
    )
    print()


if __name__ == "__main__":
    main()
