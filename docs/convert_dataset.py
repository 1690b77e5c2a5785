"""Writes a gnnstream dataset folder (nodes.jsonl + edges.csv, see data/cora/README.md) in one of
the layouts users bring, laid out as the originals are, for `--format` of load, demo, partition,
predict and bench:

  ogb        raw/{edge,node-feat,node-label,num-node-list,num-edge-list}.csv.gz (no header) and
             split/<name>/{train,valid,test}.csv.gz, as OGB's node-property-prediction sets;
  planetoid  ind.<name>.{x,tx,allx,y,ty,ally,graph,test.index}: Python-2 protocol-2 pickles (the
             opcodes Python 2 wrote: scipy.sparse.csr.csr_matrix objects, numpy arrays by
             numpy.core.multiarray._reconstruct with latin-1 byte strings, a
             collections.defaultdict of lists) and a text file of test indices. The split must
             be Planetoid-shaped: train = ids 0..T-1, val = the next 500, test = ids from the
             smallest test id up; ids in that range outside test must be in no split with zero
             features (CiteSeer's isolated test nodes, left out of tx/ty, their labels too);
  npz        <name>.npz by numpy.savez with the gnn-benchmark keys adj_data, adj_indices,
             adj_indptr, adj_shape, attr_data, attr_indices, attr_indptr, attr_shape, labels and
             class_names (an object array); no split is stored (readers draw one per class);
  dgl-csv    meta.yaml, nodes.csv (node_id,label,train_mask,val_mask,test_mask,feat with feat a
             quoted comma-separated string) and edges.csv (src_id,dst_id), as DGL's CSVDataset.

Node ids must be 0..N-1 in file order. --one-direction writes each undirected edge once
(src < dst; ogb and npz), as OGB does for sets read with --add-inverse-edges; --max-nodes K keeps
the subgraph of ids < K. Needs numpy and scipy (scipy only to check the pickles it wrote).

    python3 docs/convert_dataset.py --dataset data/cora --format planetoid --out /tmp/cora-planetoid
"""
import argparse
import csv
import gzip
import io
import json
import os
import pickle
import struct
import sys
import warnings

import numpy as np

SPLITS = {"train": 1, "val": 2, "test": 3, "none": 0}


def read_dataset(folder, max_nodes):
    ids, labels, splits, feats = [], [], [], []
    with open(os.path.join(folder, "nodes.jsonl")) as f:
        for line in f:
            if not line.strip():
                continue
            node = json.loads(line)
            if max_nodes is not None and node["id"] >= max_nodes:
                continue
            ids.append(node["id"])
            labels.append(-1 if node.get("label") is None else node["label"])
            splits.append(SPLITS[node.get("split", "none")])
            feats.append(np.asarray(node["features"], dtype=np.float32))
    if ids != list(range(len(ids))):
        sys.exit("node ids must be 0..N-1 in file order")
    n = len(ids)
    edges = np.loadtxt(os.path.join(folder, "edges.csv"), delimiter=",", dtype=np.int64, ndmin=2)
    edges = edges[:, :2]
    edges = edges[(edges[:, 0] < n) & (edges[:, 1] < n)]
    return (np.array(labels, dtype=np.int64), np.array(splits, dtype=np.int8),
            np.stack(feats) if feats else np.zeros((0, 0), dtype=np.float32), edges)


def one_direction(edges):
    pairs = np.sort(edges, axis=1)
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    return np.unique(pairs, axis=0)


def gz_lines(path, lines):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with gzip.open(path, "wt") as f:
        for line in lines:
            f.write(line + "\n")


def fmt(v):
    return "%.9g" % v


def write_ogb(out, labels, splits, x, edges, args):
    if args.one_direction:
        edges = one_direction(edges)
    raw = os.path.join(out, "raw")
    gz_lines(os.path.join(raw, "edge.csv.gz"), ("%d,%d" % (s, d) for s, d in edges))
    gz_lines(os.path.join(raw, "node-feat.csv.gz"), (",".join(fmt(v) for v in row) for row in x))
    gz_lines(os.path.join(raw, "node-label.csv.gz"),
             ("nan" if y < 0 else str(y) for y in labels))
    gz_lines(os.path.join(raw, "num-node-list.csv.gz"), [str(len(labels))])
    gz_lines(os.path.join(raw, "num-edge-list.csv.gz"), [str(len(edges))])
    split = os.path.join(out, "split", args.split_name)
    for name, code in (("train", 1), ("valid", 2), ("test", 3)):
        gz_lines(os.path.join(split, name + ".csv.gz"), (str(i) for i in np.where(splits == code)[0]))


class Py2Pickler:
    """Protocol-2 opcodes as Python 2's pickle wrote them for these objects."""

    def __init__(self):
        self.out = io.BytesIO()
        self.memo = {}
        self.next_memo = 0

    def w(self, b):
        self.out.write(b)

    def put(self, key=None):
        i = self.next_memo
        self.next_memo += 1
        if key is not None:
            self.memo[key] = i
        self.w(b"q" + bytes([i]) if i < 256 else b"r" + struct.pack("<I", i))

    def get(self, key):
        i = self.memo[key]
        self.w(b"h" + bytes([i]) if i < 256 else b"j" + struct.pack("<I", i))

    def glob(self, module, name):
        key = ("global", module, name)
        if key in self.memo:
            self.get(key)
        else:
            self.w(b"c" + module.encode() + b"\n" + name.encode() + b"\n")
            self.put(key)

    def int(self, v):
        if 0 <= v < 256:
            self.w(b"K" + bytes([v]))
        elif 0 <= v < 65536:
            self.w(b"M" + struct.pack("<H", v))
        elif -2 ** 31 <= v < 2 ** 31:
            self.w(b"J" + struct.pack("<i", v))
        else:
            raw = v.to_bytes((v.bit_length() + 8) // 8, "little", signed=True)
            self.w(b"\x8a" + bytes([len(raw)]) + raw)

    def str(self, b):
        """A Python-2 str (bytes), memoised as Python 2 did."""
        self.w((b"U" + bytes([len(b)])) if len(b) < 256 else (b"T" + struct.pack("<i", len(b))))
        self.w(b)
        self.put()

    def tuple(self, items):
        if not items:
            self.w(b")")
            return
        if len(items) > 3:
            self.w(b"(")
        for item in items:
            self.save(item)
        self.w(b"t" if len(items) > 3 else bytes([0x84 + len(items)]))
        self.put()

    def save(self, o):
        if o is None:
            self.w(b"N")
        elif o is True or o is False:
            self.w(b"\x88" if o else b"\x89")
        elif isinstance(o, (int, np.integer)):
            self.int(int(o))
        elif isinstance(o, float):
            self.w(b"G" + struct.pack(">d", o))
        elif isinstance(o, str):
            self.str(o.encode("latin-1"))
        elif isinstance(o, bytes):
            self.str(o)
        elif isinstance(o, tuple):
            self.tuple(o)
        elif isinstance(o, list):
            self.w(b"]")
            self.put()
            for i in range(0, len(o), 1000):
                self.w(b"(")
                for item in o[i:i + 1000]:
                    self.save(item)
                self.w(b"e")
        elif isinstance(o, np.ndarray):
            self.ndarray(o)
        else:
            raise TypeError(type(o))

    def dtype(self, dt):
        self.glob("numpy", "dtype")
        self.tuple((dt.kind + str(dt.itemsize), 0, 1))
        self.w(b"R")
        self.put()
        self.tuple((3, "|" if dt.itemsize == 1 else "<", None, None, None, -1, -1, 0))
        self.w(b"b")

    def ndarray(self, a):
        a = np.ascontiguousarray(a)
        self.glob("numpy.core.multiarray", "_reconstruct")
        self.glob("numpy", "ndarray")
        self.tuple((0,))
        self.str(b"b")
        self.w(b"\x87")
        self.put()
        self.w(b"R")
        self.put()
        self.w(b"(")
        self.int(1)
        self.tuple(tuple(int(s) for s in a.shape))
        self.dtype(a.dtype)
        self.w(b"\x89")
        self.str(a.astype(a.dtype.newbyteorder("<")).tobytes())
        self.w(b"t")
        self.put()
        self.w(b"b")

    def csr(self, m):
        self.glob("scipy.sparse.csr", "csr_matrix")
        self.w(b")\x81")
        self.put()
        self.w(b"}")
        self.put()
        self.w(b"(")
        for key, value in (("maxprint", 50), ("_shape", tuple(int(s) for s in m.shape)),
                           ("indices", m.indices.astype(np.int32)),
                           ("indptr", m.indptr.astype(np.int32)), ("format", "csr"),
                           ("data", m.data)):
            self.save(key)
            self.save(value)
        self.w(b"ub")

    def defaultdict_of_lists(self, d):
        self.glob("collections", "defaultdict")
        self.glob("__builtin__", "list")
        self.w(b"\x85")
        self.put()
        self.w(b"R")
        self.put()
        keys = list(d)
        for i in range(0, len(keys), 1000):
            self.w(b"(")
            for k in keys[i:i + 1000]:
                self.int(k)
                self.save(d[k])
            self.w(b"u")

    def bytes(self):
        return b"\x80\x02" + self.out.getvalue() + b"."


def dump(path, write):
    p = Py2Pickler()
    write(p)
    with open(path, "wb") as f:
        f.write(p.bytes())


def write_planetoid(out, labels, splits, x, edges, args):
    import scipy.sparse as sp
    n = len(labels)
    train = np.where(splits == 1)[0]
    val = np.where(splits == 2)[0]
    test = np.where(splits == 3)[0]
    t = len(train)
    if list(train) != list(range(t)) or list(val) != list(range(t, t + len(val))) or len(val) > 500:
        sys.exit("planetoid needs train = ids 0..T-1 and val = up to 500 ids right after them")
    lo = int(test.min())
    rest = np.setdiff1d(np.arange(lo, n), test)
    if np.abs(x[rest]).sum() > 0 or (splits[rest] != 0).any():
        sys.exit("ids from the smallest test id up must be test nodes or all-zero ones in no split")
    if (labels[rest] >= 0).any():
        print("note: %d ids of the test range are not test nodes; they are left out of tx/ty, so "
              "their labels (%s) are not written" % (len(rest), sorted(set(labels[rest].tolist()))))
    classes = int(labels.max()) + 1
    onehot = np.zeros((n, classes), dtype=np.float64)
    onehot[labels >= 0, labels[labels >= 0]] = 1
    order = np.random.RandomState(args.seed).permutation(test)
    name = args.name
    parts = {
        "x": lambda p: p.csr(sp.csr_matrix(x[:t])),
        "allx": lambda p: p.csr(sp.csr_matrix(x[:lo])),
        "tx": lambda p: p.csr(sp.csr_matrix(x[order])),
        "y": lambda p: p.ndarray(onehot[:t]),
        "ally": lambda p: p.ndarray(onehot[:lo]),
        "ty": lambda p: p.ndarray(onehot[order]),
    }
    graph = {v: [] for v in range(n)}
    for s, d in edges:
        graph[int(s)].append(int(d))
    parts["graph"] = lambda p: p.defaultdict_of_lists(graph)
    os.makedirs(out, exist_ok=True)
    for part, write in parts.items():
        dump(os.path.join(out, "ind.%s.%s" % (name, part)), write)
    with open(os.path.join(out, "ind.%s.test.index" % name), "w") as f:
        f.writelines("%d\n" % i for i in order)
    with warnings.catch_warnings():  # numpy.core and scipy.sparse.csr are deprecated aliases now
        warnings.simplefilter("ignore")
        for part in parts:
            with open(os.path.join(out, "ind.%s.%s" % (name, part)), "rb") as f:
                back = pickle.load(f, encoding="latin1")
            if part == "graph":
                assert back == graph
            elif part in ("x", "allx", "tx"):
                assert (back != sp.csr_matrix({"x": x[:t], "allx": x[:lo], "tx": x[order]}[part])).nnz == 0
            else:
                assert np.array_equal(back, {"y": onehot[:t], "ally": onehot[:lo], "ty": onehot[order]}[part])


def csr_parts(m):
    return m.data, m.indices, m.indptr, np.array(m.shape, dtype=np.int64)


def write_npz(out, labels, splits, x, edges, args):
    import scipy.sparse as sp
    if (labels < 0).any():
        sys.exit("npz needs a label on every node")
    n = len(labels)
    if args.one_direction:
        edges = one_direction(edges)
    adj = sp.csr_matrix((np.ones(len(edges), dtype=np.float32), (edges[:, 0], edges[:, 1])),
                        shape=(n, n))
    attr = sp.csr_matrix(x)
    ad, ai, ap, ash = csr_parts(adj)
    xd, xi, xp, xsh = csr_parts(attr)
    names = np.array(["class %d" % k for k in range(int(labels.max()) + 1)], dtype=object)
    os.makedirs(out, exist_ok=True)
    np.savez(os.path.join(out, args.name + ".npz"), adj_data=ad, adj_indices=ai, adj_indptr=ap,
             adj_shape=ash, attr_data=xd, attr_indices=xi, attr_indptr=xp, attr_shape=xsh,
             labels=labels, class_names=names)


def write_dgl(out, labels, splits, x, edges, args):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "meta.yaml"), "w") as f:
        f.write("dataset_name: %s\nedge_data:\n- file_name: edges.csv\nnode_data:\n"
                "- file_name: nodes.csv\n" % args.name)
    with open(os.path.join(out, "nodes.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["node_id", "label", "train_mask", "val_mask", "test_mask", "feat"])
        for v in range(len(labels)):
            w.writerow([v, "" if labels[v] < 0 else labels[v], splits[v] == 1, splits[v] == 2,
                        splits[v] == 3, ",".join(fmt(f) for f in x[v])])
    with open(os.path.join(out, "edges.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["src_id", "dst_id"])
        w.writerows(edges.tolist())


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dataset", required=True, help="gnnstream dataset folder to read")
    p.add_argument("--format", required=True, choices=["ogb", "planetoid", "npz", "dgl-csv"])
    p.add_argument("--out", required=True, help="folder to write (created)")
    p.add_argument("--name", default=None, help="set name in file names (default: the folder's)")
    p.add_argument("--split-name", default="public", help="ogb: the split/<name> folder")
    p.add_argument("--one-direction", action="store_true",
                   help="ogb, npz: each undirected edge once (src < dst)")
    p.add_argument("--max-nodes", type=int, default=None, help="keep the subgraph of ids < K")
    p.add_argument("--seed", type=int, default=0, help="planetoid: seed of test.index's order")
    args = p.parse_args()
    if args.name is None:
        args.name = os.path.basename(os.path.normpath(args.dataset))
    data = read_dataset(args.dataset, args.max_nodes)
    {"ogb": write_ogb, "planetoid": write_planetoid, "npz": write_npz,
     "dgl-csv": write_dgl}[args.format](args.out, *data, args)
    print("wrote %s (%s) from %s: %d nodes, %d edge lines" % (
        args.out, args.format, args.dataset, len(data[0]), len(data[3])))


if __name__ == "__main__":
    main()
