#!/usr/bin/python3
"""spmv_hypersparse_data.py: the host data of examples/published/spmv_hypersparse.wk for a
matrix and a grid, and the product y = A x it must print.

Reads a Matrix Market file (coordinate, 1-based; `real`, `integer` or `pattern`; `general` or
`symmetric`, whose stored triangle is mirrored) and a grid side P, partitions A as the published
hypersparse SpMV does (Cerebras csl-examples benchmarks/spmv-hypersparse, preprocess.py: our own
code after its description), and prints:

  - the kernel's constants (P, N, MNZ, MC, MR) as `--const` flags;
  - the host block's fill statements, one array of every PE in one list (fill walks the PEs row
    by row, y outer, x inner; each PE takes as many values as its array has elements);
  - the `// expect:` lines of y = A x, computed here from the matrix's entries directly (a dense
    sum in float64, printed as %g), not from the partition: the kernel's tests
    (tests/unit/lang_kernels_test.cpp) hold its printed y to them.

The layout, for PE (px, py) of P x P, with B = ceil(N / P) and LV = ceil(B / P):
  - its block is A[py*B .. py*B+B, px*B .. px*B+B) (rows: the PE row; columns: the PE column);
  - the block's nonzero columns, ascending: colidx (local index), collen (nonzeros in it),
    colloc (where they start in vals and rows); within a column, nonzeros by ascending row;
  - yrows: the block's nonzero rows (local, ascending); rows[j]: nonzero j's position in yrows;
  - counts: nonzeros, nonzero columns, nonzero rows;
  - x: x[px*B + py*LV ..+LV) (the original pads x with ones); y: y[py*B + px*LV ..+LV).
Every array is padded with zeros to the largest over PEs (MNZ, MC, MR), as the original's buffers
are sized by max_local_nnz, max_local_nnz_cols and max_local_nnz_rows.

    python3 tools/spmv_hypersparse_data.py matrix.mtx 4

x_j = j, counting from 1 (x = 1, 2, 3, ...): for a matrix of small integers y's entries are then
integers, exact in fp32 whatever the order of the sums. For other values the kernel's fp32 sums may
differ from these in the last digits.
"""
import argparse
import math


def read_mtx(path):
    with open(path) as f:
        header = f.readline().split()
        if len(header) < 5 or header[0] != "%%MatrixMarket" or header[2] != "coordinate" or header[4] not in ("general", "symmetric"):
            raise SystemExit(f"{path}: a coordinate Matrix Market file, general or symmetric, is expected")
        symmetric = header[4] == "symmetric"
        pattern = header[3] == "pattern"
        line = f.readline()
        while line.startswith("%"):
            line = f.readline()
        nrows, ncols, nnz = (int(t) for t in line.split())
        entries = []
        for line in f:
            t = line.split()
            if not t or t[0].startswith("%"):
                continue
            entries.append((int(t[0]) - 1, int(t[1]) - 1, 1.0 if pattern else float(t[2])))
    if len(entries) != nnz:
        raise SystemExit(f"{path}: {len(entries)} entries, the header says {nnz}")
    if symmetric:   # the lower triangle is stored: mirror it, as scipy's mmread does
        entries += [(c, r, v) for r, c, v in entries if r != c]
    if nrows != ncols:
        raise SystemExit(f"{path}: {nrows} x {ncols}; the kernel takes a square matrix")
    return nrows, entries


def partition(n, entries, P):
    B = math.ceil(n / P)
    blocks = {}
    for py in range(P):
        for px in range(P):
            mine = sorted((c, r, v) for r, c, v in entries if r // B == py and c // B == px)
            yrows = sorted({r - py * B for c, r, v in mine})
            colidx, colloc, collen, rows, vals = [], [], [], [], []
            for c, r, v in mine:
                lc = c - px * B
                if not colidx or colidx[-1] != lc:
                    colidx.append(lc)
                    colloc.append(len(rows))
                    collen.append(0)
                collen[-1] += 1
                rows.append(yrows.index(r - py * B))
                vals.append(v)
            blocks[px, py] = dict(vals=vals, rows=rows, colidx=colidx, colloc=colloc, collen=collen, yrows=yrows,
                                  counts=[len(vals), len(colidx), len(yrows)])
    return B, blocks


def number(v):
    return str(int(v)) if float(v).is_integer() else repr(float(v))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mtx")
    ap.add_argument("P", type=int)
    args = ap.parse_args()
    n, entries = read_mtx(args.mtx)
    P = args.P
    B, blocks = partition(n, entries, P)
    LV = math.ceil(B / P)
    size = {"vals": max(len(b["vals"]) for b in blocks.values()), "colidx": max(len(b["colidx"]) for b in blocks.values()),
            "yrows": max(len(b["yrows"]) for b in blocks.values())}
    size.update(rows=size["vals"], colloc=size["colidx"], collen=size["colidx"], counts=3)
    print(f"// --const P={P} --const N={n} --const MNZ={size['vals']} --const MC={size['colidx']} --const MR={size['yrows']}")

    order = [(px, py) for py in range(P) for px in range(P)]   # fill's walk: y outer, x inner
    values = {v for b in blocks.values() for v in b["vals"]}
    for name in ("vals", "rows", "colidx", "colloc", "collen", "yrows", "counts"):
        if name == "vals" and len(values) == 1:   # one value for every nonzero: padding is never read
            print(f"    fill vals at (0..P, 0..P) with value({number(values.pop())});")
            continue
        lines = []
        for px, py in order:
            a = blocks[px, py][name]
            lines.append(", ".join(number(v) for v in a + [0] * (size[name] - len(a))))
        body = ",\n        ".join(lines)
        print(f"    fill {name} at (0..P, 0..P) with [\n        {body}];")

    x = [float(j + 1) for j in range(n)] + [1.0] * (B * P - n)   # padding: ones, as the original's
    xs = []
    for px, py in order:
        for k in range(LV):
            j = px * B + py * LV + k
            xs.append(x[j] if py * LV + k < B else 1.0)
    print("    fill x at (0..P, 0..P) with [" + ", ".join(number(v) for v in xs) + "];")

    y = [0.0] * (B * P)
    for r, c, v in entries:
        y[r] += v * x[c]
    for px, py in order:
        vals = []
        for k in range(LV):
            i = px * LV + k
            vals.append(y[py * B + i] if i < B else 0.0)
        print(f"// expect: y @ ({px},{py}): " + " ".join("%g" % v for v in vals))


if __name__ == "__main__":
    main()
