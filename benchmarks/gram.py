"""RBF and polynomial Gram matrices: kernelkit.gram vs scikit-learn's pairwise kernels.

Question: how fast does ``kernelkit.gram`` compute a dense n x m kernel matrix,
relative to ``sklearn.metrics.pairwise.rbf_kernel`` / ``polynomial_kernel`` and
to what the hardware allows?

Cases: n = m = 10,000; d in {10, 50, 784}; RBF (gamma = 1/d) and polynomial
(degree 3, gamma = 1/d, coef0 = 1); symmetric K(X, X) (``Y=None``) and K(X, Y);
float64 and float32 input. For float32 input kernelkit runs twice: default
dtype policy (float64 output) and ``config_context(dtype="float32")``
(float32 output); scikit-learn returns float32 for float32 input.

Data
    d = 10:  ``564_fried`` (Friedman #1 table), rows 0-9,999 as X and
             10,000-19,999 as Y, standardized.
    d = 50:  standardized Gaussian N(0, 1), seed 0 (no 50-column real table).
    d = 784: Fashion-MNIST pixels in [0, 1]: the 10,000 test images as X and
             the first 10,000 training images as Y.

Hardware bound (seconds; BENCHMARKS.md figures for this machine)
    t_bound = max(2 n m d / GEMM peak   (107 GFLOP/s f64, 213 GFLOP/s f32 input),
                  n m itemsize / 30 GB/s  (writing K once; itemsize of kernelkit's output),
                  n m / exp rate          (RBF only; the rate of numba
                                           ``_compiled.exp_scaled`` in place on a 1e8
                                           float64 array, both cores, measured at start))
    "bound %" = t_bound / t_kernelkit. The exp rate is measured at the start
    (used for the bound) and again at the end; on a shared, loaded machine it
    is lower than the idle hardware rate, which makes the bound too lenient. The three terms can overlap in a fused
    implementation, so max() is a true lower bound (not a sum); it ignores the
    symmetric case's option of computing only half of K.
    "work bound %" is the same for the work kernelkit does: float64 products
    for every input (it accumulates in float64; 107 GFLOP/s), and the product
    and exp terms added, since both occupy the same cores' arithmetic units
    (only the memory term can overlap them):
    t_work = max(2 n m d / 107e9 + n m / exp rate, n m itemsize / 30 GB/s).

Targets (issue): >= 1.5x scikit-learn and >= 70 % of the bound.

Issue 24's row: RBF K(X, Y), 5000 x 5000, d = 784 (Fashion-MNIST test images
vs training images), float64, gamma = 1/784: ratio, max |diff| against
scikit-learn and against the exact kernel (the integer pixel distances from
a float64 product, exact below 2^53), the proven error bound of kernelkit's
route (``kernelkit.gram.product_choice``: exact float32 products of the
pixels' integers), and the fraction of the hardware bound with the GEMM
rates measured in the same run (max of the float32 product, writing K, the
exp). Written to results/gram_784.json.

Run: ``python benchmarks/gram.py`` (about 6 minutes) or ``--quick`` (n = 2000);
it starts with the issue's first row (n = m = 6000, d = 50, RBF K(X, X), float64)
and issue 24's d = 784 row. ``--case 784`` (or ``GRAM_CASES=784``) runs only
the d = 784 rows (issue 24's row and the d = 784 rows of the table, about 3
minutes); ``--case 6000`` only the first row (``GRAM_PART=6000`` still works);
``--case 10,50`` only those widths of the table.
Timings are medians of 3 alternating repeats after one untimed warm-up per
code path (numba compilation/cache load, BLAS thread start-up).
"""

from __future__ import annotations

import os

import numpy as np

import _common  # noqa: F401  (sets KERNELKIT_SHARED_DATA)
from _common import alternate, print_table, write_json

import kernelkit
from kernelkit import _compiled
from kernelkit.datasets import load_fashion_mnist, load_shared_table
from kernelkit.kernels import RBF, Polynomial
from sklearn.metrics.pairwise import polynomial_kernel, rbf_kernel

GEMM_PEAK = {np.float64: 107e9, np.float32: 213e9}
WRITE_BW = 30e9
REPEATS = 3


def exp_rate(size=10**8, repeats=3):
    """Elements per second of numba ``_compiled.exp_scaled``, in place, float64."""
    A = np.full((size // 10**4, 10**4), -0.5)
    _compiled.exp_scaled(A[:2], -1.0, A[:2])  # compile / load the cache
    times = []
    for _ in range(repeats):
        A.fill(-0.5)
        t = _common.timed(lambda: _compiled.exp_scaled(A, 1.0, A))[0]
        times.append(t)
    return size / float(np.median(times))


def standardize(X):
    return (X - X.mean(axis=0)) / X.std(axis=0)


def datasets(n, quick):
    """{d: (X, Y, description)} in float64."""
    out = {}
    Xf, _, _ = load_shared_table("564_fried")
    Xf = standardize(Xf)
    out[10] = (Xf[:n], Xf[n:2 * n], "564_fried rows [0,n) vs [n,2n), standardized")
    rng = np.random.default_rng(0)
    out[50] = (rng.standard_normal((n, 50)), rng.standard_normal((n, 50)),
               "standardized Gaussian N(0,1), seed 0")
    Xt, _ = load_fashion_mnist(subset="test", return_X_y=True)
    Xtr, _ = load_fashion_mnist(subset="train", return_X_y=True)
    out[784] = (Xt[:n], Xtr[:n], "Fashion-MNIST test images vs first train images, [0,1]")
    return out


def bound(kind, n, m, d, in_dtype, out_itemsize, rate):
    terms = {"gemm": 2.0 * n * m * d / GEMM_PEAK[in_dtype],
             "write": n * m * out_itemsize / WRITE_BW}
    if kind == "rbf":
        terms["exp"] = n * m / rate
    limit = max(terms, key=terms.get)
    return terms[limit], limit


def work_bound(kind, n, m, d, out_itemsize, rate):
    """The bound of the work kernelkit must do: float64 products whatever the input
    (the project accumulates in float64), and the product and the exp added, since
    both keep the same cores' arithmetic units busy (only memory traffic overlaps)."""
    compute = 2.0 * n * m * d / GEMM_PEAK[np.float64] + (n * m / rate if kind == "rbf" else 0.0)
    return max(compute, n * m * out_itemsize / WRITE_BW)


def issue_row(quick):
    """The issue's first row: RBF, float64, n = m = 6000, d = 50 (N(0, 1), seed 0),
    K(X, X), gamma = 1/50; 5 alternating repeats. Written to results/gram_6000.json."""
    n = 600 if quick else 6000
    X = np.random.default_rng(0).standard_normal((n, 50))
    kernel = RBF(gamma=1 / 50)
    kernelkit.gram(kernel, X[:64]), rbf_kernel(X[:64], gamma=1 / 50)  # warm-up
    res = alternate({"peer": lambda: rbf_kernel(X, gamma=1 / 50),
                     "kk": lambda: kernelkit.gram(kernel, X)}, 5)
    diff = float(np.max(np.abs(res["kk"]["result"] - res["peer"]["result"])))
    row = {"n": n, "d": 50, "peer_s": res["peer"]["median"], "kk_s": res["kk"]["median"],
           "peer_times": res["peer"]["times"], "kk_times": res["kk"]["times"],
           "ratio": res["peer"]["median"] / res["kk"]["median"], "max_abs_diff": diff,
           "loadavg_1min": os.getloadavg()[0]}
    print(f"rbf n={n} d=50 K(X,X) float64: peer {row['peer_s']:.3f}s kk {row['kk_s']:.3f}s "
          f"ratio {row['ratio']:.2f} diff {diff:.1e}")
    write_json("gram_6000", {"question": "the issue's first row", "row": row}, quick=quick)


def gemm_rates(n=2000, d=784, repeats=3):
    """{"float64", "float32": FLOP/s} of an (n, d) x (d, n) product on both cores, best of repeats."""
    rng = np.random.default_rng(0)
    rates = {}
    for dtype in (np.float64, np.float32):
        A, B = rng.random((n, d)).astype(dtype), rng.random((n, d)).astype(dtype)
        A @ B.T  # BLAS threads up
        best = min(_common.timed(lambda: A @ B.T)[0] for _ in range(repeats))
        rates[np.dtype(dtype).name] = 2.0 * n * n * d / best
    return rates


def issue24_row(quick, rate):
    """Issue 24's row: RBF K(X, Y), 5000 x 5000, d = 784, float64 (Fashion-MNIST)."""
    from kernelkit.gram import product_choice
    from kernelkit.kernels.rbf_grid import grid_error_bound

    n, d, g = (1200 if quick else 5000), 784, 1.0 / 784  # quick: still tiles (>= 2^20 entries)
    Xt, _ = load_fashion_mnist(subset="test", return_X_y=True)
    Xtr, _ = load_fashion_mnist(subset="train", return_X_y=True)
    X, Y = Xt[:n], Xtr[:n]
    kernel = RBF(gamma=g)
    choice = product_choice(kernel, X, Y)
    rates = gemm_rates(1000 if quick else 2000)
    kernelkit.gram(kernel, X[:64], Y[:64]), rbf_kernel(X[:64], Y[:64], gamma=g)  # warm-up
    res = alternate({"peer": lambda: rbf_kernel(X, Y, gamma=g),
                     "kk": lambda: kernelkit.gram(kernel, X, Y)}, 5)
    K, R = res["kk"]["result"], res["peer"]["result"]
    # The exact kernel: the pixels are integers / 255, a float64 product of integers
    # whose sums stay below 2^53 is exact, and exp is taken in long double (64-bit
    # mantissa: its rounding is 2^-11 of a float64 ulp), in row chunks.
    A, B = np.rint(X * 255.0), np.rint(Y * 255.0)
    D = np.einsum("ij,ij->i", A, A)[:, None] + np.einsum("ij,ij->i", B, B)[None, :]
    D -= 2.0 * (A @ B.T)
    factor = np.longdouble(g) / np.longdouble(255.0) ** 2
    err_kk = err_peer = 0.0
    for r0 in range(0, n, 500):
        exact = np.exp(-factor * D[r0:r0 + 500].astype(np.longdouble))
        err_kk = max(err_kk, float(np.max(np.abs(K[r0:r0 + 500] - exact))))
        err_peer = max(err_peer, float(np.max(np.abs(R[r0:r0 + 500] - exact))))
    row = {"n": n, "m": n, "d": d, "gamma": g, "case": "K(X,Y)", "in_dtype": "float64",
           "route": str(choice.value), "route_reason": choice.reason,
           "peer_s": res["peer"]["median"], "kk_s": res["kk"]["median"],
           "peer_times": res["peer"]["times"], "kk_times": res["kk"]["times"],
           "ratio": res["peer"]["median"] / res["kk"]["median"],
           "max_abs_diff": float(np.max(np.abs(K - R))),
           "kk_err_vs_exact": err_kk, "peer_err_vs_exact": err_peer,
           "error_bound": grid_error_bound(g, 255.0, float(np.sqrt(np.max(np.sum(A * A, 1)))),
                                           float(np.sqrt(np.max(np.sum(B * B, 1))))),
           "gemm_rate_f64": rates["float64"], "gemm_rate_f32": rates["float32"],
           "exp_rate": rate, "loadavg_1min": os.getloadavg()[0]}
    del res, K, R, D, exact
    terms = {"gemm f32": 2.0 * n * n * d / rates["float32"], "write": n * n * 8 / WRITE_BW,
             "exp": n * n / rate}
    row["bound_limit"] = max(terms, key=terms.get)
    row["bound_s"] = terms[row["bound_limit"]]
    row["bound_frac"] = row["bound_s"] / row["kk_s"]
    row["bound_frac_f64_gemm"] = 2.0 * n * n * d / rates["float64"] / row["kk_s"]
    print(f"issue 24 row: rbf n=m={n} d=784 K(X,Y) float64 (Fashion-MNIST): {choice}")
    print(f"  measured GEMM {rates['float64'] / 1e9:.0f} GFLOP/s f64, "
          f"{rates['float32'] / 1e9:.0f} GFLOP/s f32; load {row['loadavg_1min']:.1f}")
    print(f"  peer {row['peer_s']:.3f}s kk {row['kk_s']:.3f}s ratio {row['ratio']:.2f} "
          f"(target 1.5); max|kk - sklearn| {row['max_abs_diff']:.1e}; vs the exact kernel: "
          f"kk {row['kk_err_vs_exact']:.1e} (bound {row['error_bound']:.1e}), sklearn "
          f"{row['peer_err_vs_exact']:.1e}; hardware bound {row['bound_s']:.3f}s "
          f"({row['bound_limit']}) = {100 * row['bound_frac']:.0f}% of kk's time "
          f"(the f64 GEMM alone: {100 * row['bound_frac_f64_gemm']:.0f}%)", flush=True)
    write_json("gram_784", {"question": "issue 24: the d = 784 Gram, 5000 x 5000 K(X, Y), "
                                        "float64", "row": row}, quick=quick)


def selected_cases(argv=None):
    """The cases to run: ``--case``/``GRAM_CASES`` (comma-separated: 6000, 784, 10, 50), or all."""
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="small sizes, for a smoke test; results go to <name>_quick.json")
    parser.add_argument("--case", default=os.environ.get("GRAM_CASES", ""),
                        help="comma-separated cases: 6000 (the first row), 784 (issue 24's "
                             "row and the d = 784 table rows), 10, 50 (table rows); default all")
    args = parser.parse_args(argv)
    if os.environ.get("GRAM_PART") == "6000" and not args.case:
        args.case = "6000"
    cases = {c.strip() for c in args.case.split(",") if c.strip()} or {"6000", "784", "10", "50"}
    unknown = cases - {"6000", "784", "10", "50"}
    if unknown:
        parser.error(f"unknown case(s) {sorted(unknown)}; choose from 6000, 784, 10, 50")
    return args, cases


def main():
    args, cases = selected_cases()
    if "6000" in cases:
        issue_row(args.quick)
    widths = sorted(int(c) for c in cases if c != "6000")
    if not widths:
        return
    n = 2000 if args.quick else 10_000
    rate = exp_rate(10**7 if args.quick else 10**8)
    print(f"numba _compiled.exp_scaled (in place, float64, both cores): {rate / 1e9:.2f} G exp/s")
    if 784 in widths:
        issue24_row(args.quick, rate)
    data = {d: v for d, v in datasets(n, args.quick).items() if d in widths}
    for d, (_, _, desc) in data.items():
        print(f"d={d}: {desc}")

    rows = []
    for kind in ("rbf", "poly"):
        for d, (X64, Y64, desc) in data.items():
            g = 1.0 / d
            if kind == "rbf":
                kk_kernel = RBF(gamma=g)

                def peer(A, B, g=g):
                    return rbf_kernel(A, B, gamma=g)
            else:
                kk_kernel = Polynomial(degree=3, gamma=g, coef0=1.0)

                def peer(A, B, g=g):
                    return polynomial_kernel(A, B, degree=3, gamma=g, coef0=1.0)

            for dtype in (np.float64, np.float32):
                X = X64.astype(dtype)
                Y = Y64.astype(dtype)
                for sym in (True, False):
                    B = None if sym else Y
                    fns = {"peer": lambda A=X, B=B: peer(A, B),
                           "kk": lambda A=X, B=B: kernelkit.gram(kk_kernel, A, B)}
                    if dtype == np.float32:
                        def kk32(A=X, B=B):
                            with kernelkit.config_context(dtype="float32"):
                                return kernelkit.gram(kk_kernel, A, B)
                        fns["kk_f32out"] = kk32
                    # Warm-up on a slice: numba cache load, BLAS threads.
                    for fn_name, fn in fns.items():
                        small = X[:64]
                        if fn_name == "peer":
                            peer(small, None if sym else small)
                        elif fn_name == "kk":
                            kernelkit.gram(kk_kernel, small, None if sym else small)
                        else:
                            with kernelkit.config_context(dtype="float32"):
                                kernelkit.gram(kk_kernel, small, None if sym else small)
                    res = alternate(fns, REPEATS)
                    ref = res["peer"]["result"]
                    for name in [k for k in fns if k != "peer"]:
                        out = res[name]["result"]
                        diff = float(np.max(np.abs(out.astype(np.float64) - ref.astype(np.float64))))
                        t_b, limit = bound(kind, n, n, d, dtype, out.itemsize, rate)
                        t_w = work_bound(kind, n, n, d, out.itemsize, rate)
                        rows.append({
                            "kernel": kind, "d": d, "case": "K(X,X)" if sym else "K(X,Y)",
                            "in_dtype": np.dtype(dtype).name,
                            "kk_variant": "f64 out" if name == "kk" else "f32 out",
                            "peer_dtype": ref.dtype.name, "kk_dtype": out.dtype.name,
                            "peer_s": res["peer"]["median"], "kk_s": res[name]["median"],
                            "peer_times": res["peer"]["times"], "kk_times": res[name]["times"],
                            "ratio": res["peer"]["median"] / res[name]["median"],
                            "max_abs_diff": diff, "bound_s": t_b, "bound_limit": limit,
                            "bound_frac": t_b / res[name]["median"], "work_bound_s": t_w,
                            "work_bound_frac": t_w / res[name]["median"], "data": desc,
                            "loadavg_1min": os.getloadavg()[0],
                        })
                        r = rows[-1]
                        print(f"{kind:4s} d={d:3d} {r['case']} {r['in_dtype']} "
                              f"{r['kk_variant']}: peer {r['peer_s']:.3f}s kk {r['kk_s']:.3f}s "
                              f"ratio {r['ratio']:.2f} diff {diff:.1e} "
                              f"bound {t_b:.3f}s ({limit}) {100 * r['bound_frac']:.0f}% "
                              f"work bound {100 * r['work_bound_frac']:.0f}%", flush=True)
                    del res, ref, fns

    rate_end = exp_rate(10**7 if args.quick else 10**8)
    print(f"exp rate again at the end: {rate_end / 1e9:.2f} G exp/s (bound used "
          f"{rate / 1e9:.2f}; the machine is shared, see loadavg per row)")
    print(f"\nGram matrices, n = m = {n}, medians of {REPEATS}; ratio = sklearn / kernelkit "
          f"(>1: kernelkit faster); bound % = hardware bound / kernelkit time")
    print_table(rows, [("kernel", "kernel", ""), ("d", "d", "d"), ("case", "case", ""),
                       ("in_dtype", "input", ""), ("kk_variant", "kk output", ""),
                       ("peer_s", "sklearn s", ".3f"), ("kk_s", "kernelkit s", ".3f"),
                       ("ratio", "ratio", ".2f"), ("max_abs_diff", "max|diff|", ".1e"),
                       ("bound_s", "bound s", ".3f"), ("bound_limit", "limit", ""),
                       ("bound_frac", "bound %", ".0%"),
                       ("work_bound_frac", "work bound %", ".0%")])
    name = "gram" if widths == [10, 50, 784] else "gram_d" + "_".join(map(str, widths))
    write_json(name, {
        "question": "dense RBF / polynomial Gram matrices: kernelkit.gram vs sklearn pairwise",
        "n": n, "m": n, "repeats": REPEATS, "exp_rate_per_s": rate,
        "exp_rate_per_s_at_end": rate_end,
        "bound": "max(2nmd/GEMM peak (107e9 f64, 213e9 f32 input), nm*itemsize/30e9, "
                 "nm/exp_rate [rbf])",
        "work_bound": "max(2nmd/107e9 + nm/exp_rate [rbf], nm*itemsize/30e9)",
        "targets": {"ratio": 1.5, "bound_frac": 0.7}, "rows": rows,
    }, quick=args.quick)


if __name__ == "__main__":
    main()
