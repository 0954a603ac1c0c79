"""Newton without an n^3 step: KernelLogisticRegression and KernelMachine(loss="huber").

Question: how long do KernelLogisticRegression (RBF, California housing
classified at the median price, d = 8) and KernelMachine(loss="huber")
(cpu_act) take now that Newton solves its steps by preconditioned CG
(``newton_cg_dual``), against the direct solver each replaces (L-BFGS in K's
eigenbasis for KLR, one Cholesky per Newton step for Huber), and do they reach
the same optimum (max relative difference of decision values)?

Run: ``python benchmarks/newton.py`` (``--quick``: small n; ``--before`` also
times the old solvers at the largest n, which takes minutes). Prints the load
average beside every figure: the machine is shared.
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import json  # noqa: E402

from _common import RESULTS, alternate  # noqa: E402

from kernelkit.datasets.shared import load_shared_table  # noqa: E402
from kernelkit.gram import gram  # noqa: E402
from kernelkit.kernels import RBF  # noqa: E402
from kernelkit.models import KernelLogisticRegression, KernelMachine, KernelRidge  # noqa: E402
from kernelkit.solvers.newton import newton_dual  # noqa: E402
from kernelkit.solvers.newton_cg import newton_cg_dual  # noqa: E402


def load(name, target_kind):
    X, y, _ = load_shared_table(name)
    X = np.asarray(X, dtype=np.float64)
    X = (X - X.mean(0)) / X.std(0)
    y = np.asarray(y, dtype=np.float64)
    if target_kind == "classify":
        y = (y > np.median(y)).astype(int)
    else:
        y = (y - y.mean()) / y.std()
    return X, y


def rel(a, b):
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300))


def load_text():
    return "load %.1f %.1f %.1f" % os.getloadavg()


def main():
    quick = "--quick" in sys.argv
    before = "--before" in sys.argv
    repeats = 1 if quick else 3
    records = []
    rng = np.random.default_rng(0)
    Xh, yh = load("537_houses", "classify")
    print(f"KernelLogisticRegression, rbf(gamma=0.125), C=1, California housing > median "
          f"(d={Xh.shape[1]}); {load_text()}")
    for n in ([2000] if quick else [2000, 10000]):
        idx = rng.permutation(len(Xh))[:n]
        X, y = Xh[idx], yh[idx]
        new = KernelLogisticRegression("rbf(gamma=0.125)", C=1.0)
        fns = {"auto (Newton-CG)": lambda: new.fit(X, y)}
        if n <= 2000 or before:
            old = KernelLogisticRegression("rbf(gamma=0.125)", C=1.0, solver="lbfgs")
            fns["lbfgs (eigh, old default)"] = lambda: old.fit(X, y)
        out = alternate(fns, repeats if n <= 2000 or not before else 1)
        line = ", ".join(f"{k}: {v['median']:.2f} s (times {[round(t, 1) for t in v['times']]})"
                         for k, v in out.items())
        print(f"  n={n}: {line}; solver {new.solver_}, {new.n_iter_} steps; {load_text()}")
        diff = rel(new.decision_function(X), old.decision_function(X)) if len(fns) > 1 else None
        if diff is not None:
            print(f"    max relative difference of decision values: {diff:.2e}")
        records.append({"case": "KernelLogisticRegression", "n": n, "load": os.getloadavg(),
                        "seconds": {k: v["times"] for k, v in out.items()},
                        "max_rel_diff": diff})
    Xc, yc = load("197_cpu_act", "regress")
    print(f"KernelMachine(loss='huber', alpha=1), rbf(gamma=0.05), cpu_act (d={Xc.shape[1]}); "
          f"{load_text()}")
    for n in ([1000] if quick else [1000, 4000]):
        X, y = Xc[:n], yc[:n]
        K = gram(RBF(gamma=0.05), X)
        lam = 1.0 / n
        fns = {"Newton-CG": lambda: newton_cg_dual(K, y, "huber", lam),
               "Newton direct (old)": lambda: newton_dual(K, y, "huber", lam),
               "KernelRidge (fit incl. Gram)":
                   lambda: KernelRidge(alpha=1.0, kernel="rbf(gamma=0.05)").fit(X, y)}
        out = alternate(fns, repeats)
        print("  n=%d: %s; %s" % (n, ", ".join(f"{k}: {v['median']:.2f} s" for k, v in out.items()),
                                  load_text()))
        a, b = out["Newton-CG"]["result"], out["Newton direct (old)"]["result"]
        print(f"    steps CG/direct {a.n_iter}/{b.n_iter}; max relative difference of "
              f"decision values {rel(K @ a.coef, K @ b.coef):.2e}")
        records.append({"case": "huber", "n": n, "load": os.getloadavg(),
                        "seconds": {k: v["times"] for k, v in out.items()},
                        "max_rel_diff": rel(K @ a.coef, K @ b.coef)})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = KernelMachine("rbf(gamma=0.05)", loss="huber", alpha=1.0).fit(X, y)
        print(f"    KernelMachine(loss='huber') plan: "
              f"{'; '.join(str(c) for c in m.plan_.choices)}")
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / ("newton_quick.json" if quick else "newton.json")
    path.write_text(json.dumps(records, indent=1))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
