"""
Random features in depth: orthogonal frequencies, the uniform bound, the box
============================================================================

Lecture: Random features -- orthogonal random features (Yu et al. 2016),
Rahimi & Recht's uniform bound with the spectral second moment, the
constrained ERM max_i ``|beta_i|`` <= C / q of the kitchen sinks, and random
features inside the kernel machine (features=...).

Four parts, each a slide of the notes:

1. **Orthogonal random features.** Random Fourier features draw the
   frequencies w_j independently from the spectral density; Yu et al. (2016)
   draw them in blocks of d *orthogonal* directions with chi-distributed
   lengths, which keeps E[z(x)'z(y)] = k(x, y) and lowers the variance. The
   table gives ``||Z Z' - K||``_F / ``||K||``_F on 16-dimensional data for
   :class:`kernelkit.features.RandomFourierFeatures` with
   ``variant="cos_bias"``, ``"paired"`` and ``"orthogonal"``.
2. **The uniform bound.** Rahimi & Recht (2007, Claim 1):
   P(sup_{x, y in M} ``|z(x)'z(y) - k(x, y)|`` >= eps)
   <= 2^8 (sigma_p diam(M) / eps)^2 exp(-D eps^2 / (4 (d + 2))), with
   sigma_p^2 = E``||w||``^2 the spectral second moment
   (:func:`kernelkit.diagnostics.spectral_second_moment`: 2 gamma d for
   the RBF kernel) and :func:`kernelkit.diagnostics.rahimi_recht_bound`.
   Against it, the measured frequency over repeated draws of the largest
   error over the pairs of a sample of M: a valid bound, and a loose one.
3. **The kitchen sinks' constrained ERM.** q random cosines fitted by
   min (1/n) sum (y - f)^2 / 2 subject to max ``|beta_i|`` <= C / q
   (:func:`kernelkit.solvers.box_erm`, accelerated projected gradient;
   :class:`kernelkit.models.KitchenSinksRegressor`): test error as q grows,
   for a tight and a loose C.
4. **Random features inside the kernel machine.**
   ``KernelMachine(features=RandomFourierFeatures(...))`` learns the primal
   weights on D orthogonal random features by SGD; its test error approaches
   the exact kernel machine's (Newton on the Gram matrix) as D grows.

Run: ``python examples/random_features_in_depth.py`` (about 30 seconds)
"""

import argparse
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from kernelkit import gram
from kernelkit.diagnostics import rahimi_recht_bound, spectral_second_moment
from kernelkit.features import RandomFourierFeatures
from kernelkit.kernels import RBF
from kernelkit.models import KernelMachine, KitchenSinksRegressor
from kernelkit.solvers import box_erm

VARIANTS = ("cos_bias", "paired", "orthogonal")
ORTHO_D = 16
ORTHO_GAMMA = 1.0 / (2 * ORTHO_D)  # gamma ||x - y||^2 is about 1 on standard normal data
BOUND_EPS = 0.25
BOUND_GAMMA = 0.5
SINKS_C = (1.0, 100.0)


def orthogonal_errors(quick):
    """Mean relative Frobenius error of Z Z' against K, per variant and D."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100 if quick else 300, ORTHO_D))
    kernel = RBF(gamma=ORTHO_GAMMA)
    K = gram(kernel, X)
    Ds = (16, 32, 64, 128) if quick else (16, 32, 64, 128, 256, 512)
    seeds = range(5 if quick else 20)
    errors = {}
    for variant in VARIANTS:
        for D in Ds:
            errs = []
            for seed in seeds:
                Z = RandomFourierFeatures(kernel, D, variant=variant,
                                          random_state=seed).fit_transform(X)
                errs.append(np.linalg.norm(Z @ Z.T - K) / np.linalg.norm(K))
            errors[variant, D] = float(np.mean(errs))
    return Ds, errors


def uniform_bound(quick):
    """The bound against the measured P(max over sample pairs of |error| >= eps)."""
    d = 2
    rng = np.random.default_rng(1)
    X = rng.uniform(-1.0, 1.0, size=(40 if quick else 100, d))  # M = [-1, 1]^2
    diameter = 2.0 * np.sqrt(d)
    kernel = RBF(gamma=BOUND_GAMMA)
    sigma2 = spectral_second_moment(kernel.spectral_density(), d)
    K = gram(kernel, X)
    Ds = (10, 30, 100, 300, 1000) if quick else (10, 30, 100, 300, 1000, 3000, 10000)
    n_draws = 30 if quick else 100
    rows = []
    draws = []
    for D in Ds:
        sups = []
        for seed in range(n_draws):
            rff = RandomFourierFeatures(kernel, D, random_state=seed).fit(X)
            Z = rff.transform(X)
            sups.append(float(np.abs(Z @ Z.T - K).max()))
            if D == Ds[-1]:
                draws.append(rff.random_weights_)
        rows.append({"D": D, "bound": float(rahimi_recht_bound(
            D, BOUND_EPS, sigma2=sigma2, diameter=diameter, n_features=d)),
            "measured": float(np.mean(np.array(sups) >= BOUND_EPS)),
            "median_sup": float(np.median(sups))})
    W = np.hstack(draws)  # (d, n_draws * D) frequencies
    # the smallest D at which the bound drops to 5 %: log of the bound is linear in D
    at_one = float(rahimi_recht_bound(1, BOUND_EPS, sigma2=sigma2, diameter=diameter,
                                      n_features=d))
    slope = BOUND_EPS ** 2 / (4 * (d + 2))
    D_needed = int(np.ceil((np.log(at_one / 0.05) + slope) / slope))
    return {"rows": rows, "sigma2": float(sigma2), "sigma2_sampled": float(np.mean(
        np.sum(W ** 2, axis=0))), "diameter": diameter, "d": d, "D_needed": D_needed,
        "n_draws": n_draws, "X": X}


def kitchen_sinks(quick):
    """KitchenSinksRegressor test RMSE against q for a tight and a loose C; one box_erm."""
    rng = np.random.default_rng(2)
    n = 300 if quick else 1000
    x = rng.uniform(-3.0, 3.0, size=(2 * n, 1))
    y = np.sin(2 * x[:, 0]) + 0.5 * x[:, 0] + 0.2 * rng.normal(size=2 * n)
    Xtr, ytr, Xte, yte = x[:n], y[:n], x[n:], y[n:]
    qs = (5, 20, 80, 320)
    rmse = {}
    models = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for C in SINKS_C:
            for q in qs:
                reg = KitchenSinksRegressor(q, C=C, gamma=1.0, max_iter=3000,
                                            random_state=0).fit(Xtr, ytr)
                rmse[C, q] = float(np.sqrt(np.mean((reg.predict(Xte) - yte) ** 2)))
                models[C, q] = reg
        # the same ERM by hand on the largest model's features, without the intercept
        reg = models[SINKS_C[-1], qs[-1]]
        Z = reg.feature_map_.transform(Xtr)
        direct = box_erm(Z, ytr - ytr.mean(), SINKS_C[0] / qs[-1], max_iter=3000, tol=1e-8)
    return {"qs": qs, "rmse": rmse, "X_train": Xtr, "y_train": ytr, "X_test": Xte,
            "y_test": yte, "models": models, "Z": Z, "direct": direct}


def machine(quick):
    """KernelMachine on D orthogonal random features (SGD) against the exact machine."""
    rng = np.random.default_rng(3)
    n = 400 if quick else 2000
    X = rng.normal(size=(2 * n, 4))
    y = np.sin(X[:, 0]) * np.cos(X[:, 1]) + 0.3 * X[:, 2] + 0.1 * rng.normal(size=2 * n)
    Xtr, ytr, Xte, yte = X[:n], y[:n], X[n:], y[n:]
    kernel, alpha = RBF(gamma=0.25), 1.0
    exact = KernelMachine(kernel, alpha=alpha, solver="newton").fit(Xtr, ytr)
    exact_rmse = float(np.sqrt(np.mean((exact.predict(Xte) - yte) ** 2)))
    Ds = (8, 32, 128) if quick else (8, 32, 128, 512)
    rmse = {}
    fitted = {}
    for D in Ds:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            m = KernelMachine(kernel, alpha=alpha, solver="sgd", strategy="features_cached",
                              n_epochs=20, average=True, random_state=0,
                              features=RandomFourierFeatures(kernel, D, variant="orthogonal",
                                                             random_state=0)).fit(Xtr, ytr)
        rmse[D] = float(np.sqrt(np.mean((m.predict(Xte) - yte) ** 2)))
        fitted[D] = m
    return {"Ds": Ds, "rmse": rmse, "exact_rmse": exact_rmse, "alpha": alpha,
            "X_train": Xtr, "y_train": ytr, "X_test": Xte, "models": fitted}


def run(quick=False):
    """The four parts' tables."""
    Ds, errors = orthogonal_errors(quick)
    print(f"||Z Z' - K||_F / ||K||_F, d = {ORTHO_D}, RBF gamma = {ORTHO_GAMMA:g}")
    print(f"{'D':>5s} " + " ".join(f"{v:>11s}" for v in VARIANTS))
    for D in Ds:
        print(f"{D:>5d} " + " ".join(f"{errors[v, D]:11.4f}" for v in VARIANTS))

    rr = uniform_bound(quick)
    print(f"\nRahimi & Recht on M = [-1, 1]^{rr['d']} (diameter {rr['diameter']:.3f}), "
          f"eps = {BOUND_EPS}: sigma_p^2 = {rr['sigma2']:g} (sampled frequencies: "
          f"{rr['sigma2_sampled']:.3f})")
    print(f"{'D':>6s} {'bound':>10s} {'measured P':>11s} {'median sup':>11s}")
    for r in rr["rows"]:
        print(f"{r['D']:>6d} {r['bound']:10.3g} {r['measured']:11.2f} {r['median_sup']:11.3f}")
    print(f"the bound reaches 5 % at D = {rr['D_needed']}")

    ks = kitchen_sinks(quick)
    print("\nKitchen sinks (random cosines, box max |beta_i| <= C / q): test RMSE "
          "(noise sd 0.2)")
    print(f"{'q':>5s} " + " ".join(f"{'C = ' + format(C, 'g'):>10s}" for C in SINKS_C))
    for q in ks["qs"]:
        print(f"{q:>5d} " + " ".join(f"{ks['rmse'][C, q]:10.3f}" for C in SINKS_C))

    km = machine(quick)
    print(f"\nKernelMachine(features=RandomFourierFeatures(D, 'orthogonal')), SGD: test RMSE "
          f"(exact kernel machine {km['exact_rmse']:.3f})")
    for D in km["Ds"]:
        print(f"  D = {D:4d}: {km['rmse'][D]:.3f}")
    return {"orthogonal": {"Ds": Ds, "errors": errors}, "bound": rr, "sinks": ks,
            "machine": km}


def plot(results):
    """Kernel error against D; the bound against the measured frequency; kitchen sinks'
    test RMSE against q; the kernel machine's test RMSE against D."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(16, 4.2), layout="constrained")
    ax_orth, ax_rr, ax_ks, ax_km = fig.subplots(1, 4)
    o = results["orthogonal"]
    for v in VARIANTS:
        ax_orth.loglog(o["Ds"], [o["errors"][v, D] for D in o["Ds"]], "o-", label=v)
    ax_orth.set_xticks(o["Ds"], [str(D) for D in o["Ds"]])
    ax_orth.minorticks_off()
    ax_orth.set_xlabel("D")
    ax_orth.set_ylabel("||ZZ' - K||_F / ||K||_F")
    ax_orth.set_title(f"orthogonal features (d = {ORTHO_D})")
    ax_orth.legend(fontsize=8)
    rr = results["bound"]
    D = [r["D"] for r in rr["rows"]]
    ax_rr.loglog(D, [min(r["bound"], 1e6) for r in rr["rows"]], "o-", label="R&R bound")
    ax_rr.loglog(D, [max(r["measured"], 1e-3) for r in rr["rows"]], "s-",
                 label="measured P (floor 1e-3)")
    ax_rr.axhline(1.0, color="k", lw=0.8)
    ax_rr.set_ylim(5e-4, 1e6)
    ax_rr.set_xlabel("D")
    ax_rr.set_ylabel(f"P(sup error >= {BOUND_EPS})")
    ax_rr.set_title("the uniform bound")
    ax_rr.legend(fontsize=8)
    ks = results["sinks"]
    for C in SINKS_C:
        ax_ks.semilogx(ks["qs"], [ks["rmse"][C, q] for q in ks["qs"]], "o-", label=f"C = {C:g}")
    ax_ks.axhline(0.2, color="k", ls="--", label="noise")
    ax_ks.set_xlabel("q random cosines")
    ax_ks.set_ylabel("test RMSE")
    ax_ks.set_title("kitchen sinks: the box C / q")
    ax_ks.legend(fontsize=8)
    km = results["machine"]
    ax_km.semilogx(km["Ds"], [km["rmse"][D] for D in km["Ds"]], "o-", label="features=RFF")
    ax_km.axhline(km["exact_rmse"], color="k", ls="--", label="exact kernel")
    ax_km.set_xlabel("D")
    ax_km.set_ylabel("test RMSE")
    ax_km.set_title("KernelMachine(features=...)")
    ax_km.legend(fontsize=8)
    return fig


def main(argv=None):
    parser = argparse.ArgumentParser(description="Random features in depth.")
    parser.add_argument("--quick", action="store_true", help="fewer draws (a test run)")
    parser.add_argument("--out", default="random_features_in_depth.png", help="PNG file")
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
