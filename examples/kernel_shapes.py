"""
The shapes of kernels, their spectra and the effective dimension
=================================================================

Lecture: Kernels and feature maps -- the kernels of the notes (Gaussian,
Laplacian, Cauchy, Matern, the spline kernel with infinitely many knots) and
the effective dimension sum_i lambda_i / (lambda_i + n alpha) of kernel ridge
regression.

A shift-invariant kernel is one curve, t -> k(0, t). The Gaussian (RBF) curve
is flat at 0 (infinitely smooth: its functions are smooth), the Laplacian
exp(-``|t|``) has a kink there (its functions are continuous but rough, Brownian-
like), and the Matern family sits in between: nu = 1/2 *is* the Laplacian,
nu = 3/2 and 5/2 are once and twice differentiable, and nu -> infinity gives
the Gaussian. The Cauchy kernel 1 / (1 + t^2) is smooth like the Gaussian but
has heavy tails. The spline kernel (Vapnik: a linear spline with a knot at
every t >= 0, k(x, y) = 1 + xy + int_0^inf (x - t)_+ (y - t)_+ dt) is not
shift-invariant: k(s, .) is a cubic up to s and a straight line after it (the
order-0 spline 1 + min(s, t), Brownian motion plus a constant, bends at s).

Smoothness is what the Gram matrix's spectrum sees: on n points of [0, 1] the
eigenvalues of K decay like i^-(2 nu + 1) for a Matern kernel (the Laplacian
like i^-2, the linear spline like i^-4), and exponentially for the Gaussian.
The effective dimension of ridge regression with penalty alpha,

    d_eff(alpha) = trace(K (K + n alpha I)^-1) = sum_i lambda_i / (lambda_i + n alpha),

counts the eigen-directions above the level n alpha, so at the same alpha a
rough kernel fits many more directions than a smooth one. The script prints
k(0, 1), the slope of k(0, t) at 0+, the fitted decay exponent of each
spectrum and d_eff at three penalties, and draws the curves, the spline's
k(s, .), the spectra and d_eff against alpha.

Run: ``python examples/kernel_shapes.py`` (about 5 seconds)
"""

import argparse

import numpy as np

from kernelkit.diagnostics import effective_dimension
from kernelkit.kernels import RBF, Cauchy, Laplacian, Matern, Spline

ALPHAS = (1e-2, 1e-4, 1e-6)
SPLINE_AT = (0.25, 0.5, 0.75)


def shift_invariant(length):
    """(name, kernel, smoothness nu or None) with the width ``length`` in each one's units."""
    return [
        ("Gaussian (RBF)", RBF(gamma=0.5 / length ** 2), np.inf),
        ("Matern nu = 5/2", Matern(nu=2.5, length_scale=length), 2.5),
        ("Matern nu = 3/2", Matern(nu=1.5, length_scale=length), 1.5),
        ("Matern nu = 1/2", Matern(nu=0.5, length_scale=length), 0.5),
        ("Laplacian", Laplacian(gamma=1.0 / length), 0.5),
        ("Cauchy", Cauchy(gamma=1.0 / length), None),
    ]


def profile(kernel, t):
    """k(0, t) on a grid t (1-D inputs)."""
    return kernel(np.zeros((1, 1)), np.asarray(t, dtype=np.float64)[:, None])[0]


def decay_exponent(eigenvalues, lo, hi):
    """Least-squares slope of log lambda_i against log i for i in [lo, hi)."""
    i = np.arange(lo, hi)
    return float(np.polyfit(np.log(i), np.log(eigenvalues[lo - 1:hi - 1]), 1)[0])


def run(quick=False):
    """Curves, spectra and effective dimensions of the kernels; return them."""
    t = np.linspace(-3.0, 3.0, 241)
    h = 1e-6
    curves = {}
    for name, k, _ in shift_invariant(1.0):
        curves[name] = {"k": profile(k, t), "at_1": float(profile(k, [1.0])[0]),
                        "slope_0": float((profile(k, [h])[0] - 1.0) / h)}
    s_grid = np.linspace(0.0, 1.0, 101)
    spline = {(order, s): Spline(order=order)(np.array([[s]]), s_grid[:, None])[0]
              for order in (0, 1) for s in SPLINE_AT}

    n = 200 if quick else 600
    x = np.sort(np.random.default_rng(0).uniform(0.0, 1.0, size=(n, 1)), axis=0)
    spectra, d_eff = {}, {}
    alpha_grid = np.logspace(-8, 0, 17 if quick else 33)
    kernels = [(name, k) for name, k, _ in shift_invariant(0.2)] + \
        [("linear spline", Spline(order=1))]
    for name, k in kernels:
        K = k(x)
        lam = np.clip(np.linalg.eigvalsh(K)[::-1], 0.0, None)
        spectra[name] = lam
        d_eff[name] = np.array([effective_dimension(K, a) for a in alpha_grid])
    lo, hi = 10, 40  # the algebraic part of the spectra, above round-off
    exponents = {name: decay_exponent(spectra[name], lo, hi) for name, _ in kernels}
    at_alphas = {name: [effective_dimension(k(x), a) for a in ALPHAS] for name, k in kernels}

    print("k(0, t) with length scale 1: value at t = 1, slope at t = 0+ (a kink when < 0)\n")
    print(f"{'kernel':18s} {'k(0, 1)':>8s} {'slope 0+':>9s}")
    for name, c in curves.items():
        print(f"{name:18s} {c['at_1']:8.4f} {c['slope_0']:9.4f}")
    print(f"\n{n} points of [0, 1], length scale 0.2: decay exponent of lambda_i "
          f"(i = {lo}..{hi - 1}) and the effective dimension sum lambda / (lambda + n alpha)\n")
    print(f"{'kernel':18s} {'decay':>7s} " + " ".join(f"{'alpha=' + format(a, 'g'):>12s}"
                                                      for a in ALPHAS))
    for name, _ in kernels:
        print(f"{name:18s} {exponents[name]:7.2f} "
              + " ".join(f"{v:12.2f}" for v in at_alphas[name]))
    return {"t": t, "curves": curves, "s_grid": s_grid, "spline": spline, "n": n, "x": x,
            "spectra": spectra, "exponents": exponents, "decay_range": (lo, hi),
            "alpha_grid": alpha_grid, "d_eff": d_eff, "alphas": ALPHAS, "at_alphas": at_alphas}


def plot(results):
    """Four panels: k(0, t), the spline's k(s, .), the spectra, d_eff against alpha."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(12, 9), layout="constrained")
    axes = fig.subplots(2, 2)
    ax = axes[0, 0]
    for name, c in results["curves"].items():
        style = "--" if name == "Laplacian" else "-"
        ax.plot(results["t"], c["k"], style, label=name)
    ax.set_xlabel("t")
    ax.set_ylabel("k(0, t)")
    ax.set_title("shift-invariant kernels, length scale 1 (Laplacian = Matern 1/2)")
    ax.legend(fontsize=8)

    ax = axes[0, 1]
    for (order, s), values in results["spline"].items():
        color = f"C{SPLINE_AT.index(s)}"
        ax.plot(results["s_grid"], values, "-" if order else "--", color=color,
                label=f"order {order}, s = {s:g}")
        ax.axvline(s, color="0.8", lw=0.8)
    ax.set_xlabel("t")
    ax.set_ylabel("k(s, t)")
    ax.set_title("spline kernels k(s, .): order 0 = 1 + min(s, t), order 1")
    ax.legend(fontsize=8)

    ax = axes[1, 0]
    for name, lam in results["spectra"].items():
        ax.loglog(np.arange(1, len(lam) + 1), lam / lam[0], label=
                  f"{name} ({results['exponents'][name]:.1f})")
    lo, hi = results["decay_range"]
    ax.axvspan(lo, hi, color="0.93")
    ax.set_ylim(1e-16, 2.0)
    ax.set_xlabel("i")
    ax.set_ylabel("lambda_i / lambda_1")
    ax.set_title(f"Gram spectra on {results['n']} points (fitted decay exponent)")
    ax.legend(fontsize=8)

    ax = axes[1, 1]
    for name, d in results["d_eff"].items():
        ax.semilogx(results["alpha_grid"], d, label=name)
    ax.set_xlabel("alpha")
    ax.set_ylabel("effective dimension")
    ax.set_yscale("log")
    ax.set_title("d_eff = sum lambda_i / (lambda_i + n alpha)")
    ax.legend(fontsize=8)
    return fig


def main(argv=None):
    parser = argparse.ArgumentParser(description="Kernel shapes, spectra, effective dimension.")
    parser.add_argument("--quick", action="store_true", help="fewer points (a test run)")
    parser.add_argument("--out", default="kernel_shapes.png", help="PNG file to write")
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
