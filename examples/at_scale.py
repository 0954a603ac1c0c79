"""
Kernel ridge at scale: the plan, the centers and Falkon's iterations
====================================================================

Lecture: Large-scale kernel methods -- the cost model that chooses a strategy,
choosing the Nystroem centers, and Falkon (Nystroem + preconditioned conjugate
gradients) against plain conjugate gradients.

Exact kernel ridge stores the n x n Gram matrix (8 n^2 bytes) and factors it
(n^3 / 3 flops): fine for n = 10^4, impossible for n = 10^6. The notes' way
out is the Nystroem system with M << n centers,

    (K_nM' K_nM + alpha K_MM) c = K_nM' y,

solved by conjugate gradients with Falkon's preconditioner (Rudi, Carratino
and Rosasco 2017), which makes the number of iterations small and
independent of the conditioning. Three parts:

1. **The plan.** :func:`kernelkit.planning.plan_ridge` predicts the time and
   memory of each strategy from the machine's rates -- measured by
   :func:`kernelkit.calibration.calibrate` (the reference rates of
   ``kernelkit.config.REFERENCE_RATES`` in quick mode, since measuring takes
   a while) -- and the table shows the choice moving from the exact dual to
   Falkon as n grows under an 8 GB budget.
2. **The centers.** :func:`kernelkit.features.select_centers` picks M rows
   uniformly, by k-means++ (D^2 sampling) or by ridge leverage scores; the
   table gives the relative trace-norm error of the Nystroem approximation
   tr(K - K_nM K_MM^+ K_Mn) / tr(K) of each (smaller is a better subspace).
3. **The iterations.** The Nystroem system above solved by
   :func:`kernelkit.linalg.pcg` without a preconditioner and by
   :func:`kernelkit.solvers.falkon`: the relative error of the fitted values
   ||K_nM (c_k - c*)|| / ||K_nM c*|| after k iterations, c* the exact
   solution of the same system. Plain CG crawls (the system's condition
   number is about 10^6 in quick mode, 10^12 in the full one); Falkon gains
   about a digit every few iterations, down to about 1e-5 in the full mode,
   where the jitter added to K_MM's diagonal limits it.

Run: ``python examples/at_scale.py`` (about 40 seconds, most of it calibrate)
"""

import argparse
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from kernelkit import gram
from kernelkit.calibration import calibrate
from kernelkit.config import REFERENCE_RATES
from kernelkit.features import select_centers
from kernelkit.kernels import RBF
from kernelkit.linalg import pcg
from kernelkit.planning import plan_ridge
from kernelkit.solvers import falkon

KERNEL = RBF(gamma=0.5)
ALPHA = 1.0
PLAN_SIZES = (1_000, 10_000, 30_000, 100_000, 1_000_000)
PLAN_D = 10
MEMORY = "8GB"
METHODS = ("uniform", "kmeans++", "leverage")


def make_data(n, seed=0):
    """n points in 3-D with a smooth target plus noise of standard deviation 0.1."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.sin(2 * X[:, 0]) + 0.5 * X[:, 1] * X[:, 2] + 0.1 * rng.normal(size=n)
    return X, y


def nystroem_error(X, centers):
    """tr(K - K_nM K_MM^+ K_Mn) / tr(K): the relative trace-norm error of Nystroem."""
    Knm, Kmm = gram(KERNEL, X, X[centers]), gram(KERNEL, X[centers])
    vals, vecs = np.linalg.eigh(Kmm)
    keep = vals > 1e-12 * vals.max()
    root = Knm @ (vecs[:, keep] / np.sqrt(vals[keep]))  # K_nM K_MM^{-1/2}
    trace = float(np.sum(KERNEL.diag(X)))
    return max(trace - float(np.sum(root ** 2)), 0.0) / trace


def the_plan(rates):
    """plan_ridge for each n: the choice and every candidate's predicted seconds and bytes."""
    rows = []
    for n in PLAN_SIZES:
        plan = plan_ridge(n, PLAN_D, memory=MEMORY, rates=rates)
        cands = {c.name: c for c in plan.candidates}
        rows.append({"n": n, "choice": plan.choice,
                     **{f"{name}_seconds": float(c.seconds) for name, c in cands.items()},
                     **{f"{name}_memory": float(c.memory) for name, c in cands.items()},
                     **{f"{name}_feasible": bool(c.feasible) for name, c in cands.items()}})
    return rows


def iterations(X, y, C, n_iter):
    """Relative error of the fitted values ||K_nM (c_k - c*)|| / ||K_nM c*|| after
    k = 1..n_iter iterations of plain CG and of Falkon (one Falkon run per k: its callback
    only counts), c* the exact solution of the Nystroem system."""
    Knm, Kmm = gram(KERNEL, X, C), gram(KERNEL, C)
    A = Knm.T @ Knm + ALPHA * Kmm
    b = Knm.T @ y
    exact = np.linalg.solve(A, b)

    def residual(c):
        return float(np.linalg.norm(Knm @ (c - exact)) / np.linalg.norm(Knm @ exact))

    plain = []
    with warnings.catch_warnings():  # stopping short is the point here
        warnings.simplefilter("ignore", ConvergenceWarning)
        res = pcg(A, b, rtol=1e-14, maxiter=n_iter, callback=lambda c: plain.append(residual(c)))
        fal = [residual(falkon(KERNEL, X, C, y, ALPHA, tol=1e-14, maxiter=k, solve="cg",
                               preconditioner="cholesky", store=True).coef) for k in range(1, n_iter + 1)]
        full = falkon(KERNEL, X, C, y, ALPHA, tol=1e-12, maxiter=200, solve="cg",
                      preconditioner="cholesky", store=True)
    return {"plain_cg": np.array(plain), "falkon": np.array(fal), "exact": exact,
            "pcg_x": res.x, "falkon_coef": full.coef, "falkon_n_iter": full.n_iter,
            "condition": float(np.linalg.cond(A))}


def run(quick=False):
    """The plan table, the center methods' Nystroem errors and the CG residual curves."""
    rates = dict(REFERENCE_RATES) if quick else calibrate()
    print("rates (" + ("reference" if quick else "measured by calibrate()") + "): "
          + ", ".join(f"{k} {v:.3g}" for k, v in rates.items()))
    plan = the_plan(rates)
    print(f"\nplan_ridge(n, d={PLAN_D}, memory={MEMORY!r}): predicted seconds (x: over budget)")
    print(f"{'n':>10s} {'dual':>12s} {'falkon':>10s}  choice")
    for r in plan:
        dual = f"{r['dual_seconds']:11.3g}" + (" " if r["dual_feasible"] else "x")
        print(f"{r['n']:>10d} {dual:>12s} {r['falkon_seconds']:10.3g}  {r['choice']}")

    n = 600 if quick else 2000
    X, y = make_data(n)
    sizes = (10, 20, 40) if quick else (25, 50, 100, 200)
    errors = {}
    print(f"\nNystroem error tr(K - K_nM K_MM^+ K_Mn) / tr(K), n = {n}, averaged over seeds")
    print(f"{'M':>5s} " + " ".join(f"{m:>10s}" for m in METHODS))
    seeds = range(2 if quick else 5)
    for M in sizes:
        for method in METHODS:
            errors[method, M] = float(np.mean([
                nystroem_error(X, select_centers(KERNEL, X, M, method, check_random_state(s)))
                for s in seeds]))
        print(f"{M:>5d} " + " ".join(f"{errors[m, M]:10.2e}" for m in METHODS))

    M = sizes[-1]
    C = X[select_centers(KERNEL, X, M, "uniform", check_random_state(0))]
    curves = iterations(X, y, C, 20 if quick else 40)
    print(f"\nNystroem system, M = {M}, alpha = {ALPHA:g} (condition number "
          f"{curves['condition']:.1e}): error of the fitted values after k iterations")
    print(f"{'k':>4s} {'plain CG':>10s} {'Falkon':>10s}")
    for k in (1, 2, 5, 10, 15, 20, 40):
        if k <= len(curves["falkon"]):
            print(f"{k:>4d} {curves['plain_cg'][k - 1]:10.2e} {curves['falkon'][k - 1]:10.2e}")
    return {"rates": rates, "plan": plan, "n": n, "sizes": sizes, "errors": errors,
            "X": X, "y": y, "centers": C, **curves}


def plot(results):
    """Predicted seconds against n; Nystroem error against M; CG residual against k."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(14, 4.2), layout="constrained")
    ax_plan, ax_centers, ax_cg = fig.subplots(1, 3)
    ns = np.array([r["n"] for r in results["plan"]])
    for name, style in (("dual", "o-"), ("falkon", "s-")):
        ax_plan.loglog(ns, [r[f"{name}_seconds"] for r in results["plan"]], style, label=name)
    over = [r for r in results["plan"] if not r["dual_feasible"]]
    ax_plan.loglog([r["n"] for r in over], [r["dual_seconds"] for r in over], "rx", ms=12,
                   label=f"dual over {MEMORY}")
    ax_plan.set_xlabel("n")
    ax_plan.set_ylabel("predicted seconds")
    ax_plan.set_title("plan_ridge: predicted time")
    ax_plan.legend(fontsize=8)
    for method in METHODS:
        ax_centers.semilogy(results["sizes"], [results["errors"][method, M]
                                               for M in results["sizes"]], "o-", label=method)
    ax_centers.set_xlabel("M centers")
    ax_centers.set_ylabel("tr(K - Nystroem) / tr(K)")
    ax_centers.set_title("choosing the centers")
    ax_centers.legend(fontsize=8)
    k = np.arange(1, len(results["falkon"]) + 1)
    ax_cg.semilogy(k, results["plain_cg"], "o-", label="plain CG (pcg)")
    ax_cg.semilogy(k, results["falkon"], "s-", label="Falkon")
    ax_cg.set_xlabel("iterations k")
    ax_cg.set_ylabel("||K_nM (c_k - c*)|| / ||K_nM c*||")
    ax_cg.set_title("the Nystroem system")
    ax_cg.legend(fontsize=8)
    return fig


def main(argv=None):
    parser = argparse.ArgumentParser(description="Kernel ridge at scale: plan, centers, Falkon.")
    parser.add_argument("--quick", action="store_true", help="reference rates, small data")
    parser.add_argument("--out", default="at_scale.png", help="PNG file to write")
    args = parser.parse_args(argv)
    results = run(quick=args.quick)
    try:
        fig = plot(results)
    except ImportError:
        print("no picture (matplotlib is not installed)")
        return
    fig.savefig(args.out, dpi=100)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
