"""
Random Fourier features are unbiased, and their variance shrinks like 1/D
=========================================================================

Lecture: Random features -- the unbiasedness experiment for random Fourier
features (mean of z(x)'z(y) over many draws, and its variance against D).

Bochner: the RBF kernel k(x, y) = exp(-gamma ||x - y||^2) is E_w[cos(w'(x - y))]
for w ~ Normal(0, 2 gamma I). With D features z_j(x) = sqrt(2/D) cos(w_j'x + b_j),
b_j ~ Uniform[0, 2 pi] (Rahimi & Recht 2007), the estimate z(x)'z(y) is the
mean of D independent copies of

    2 cos(w'x + b) cos(w'y + b) = cos(w'delta) + cos(w'(x + y) + 2b),   delta = x - y.

The second term has mean 0 over b, so E[z(x)'z(y)] = k(delta): **unbiased** for
every D. Its variance is Var_1 / D, with, for one feature (E_b cos^2 = 1/2,
E_w cos^2(w'delta) = (1 + k(2 delta))/2 and the cross term 0 over b):

    Var_1 = (1 + k(2 delta))/2 + 1/2 - k(delta)^2 = 1 + k(2 delta)/2 - k(delta)^2.

The *paired* features (cos(w'x), sin(w'x)) of one frequency give exactly
cos(w'delta) (no b): one frequency has variance (1 + k(2 delta))/2 - k(delta)^2
= (1 + k(2 delta) - 2 k(delta)^2)/2 (the offset b of one cos + b feature adds
1/2 to it), and D features (D/2 frequencies) have (1 + k(2 delta) - 2 k(delta)^2) / D
-- below the cos + b features' by (k(delta)^2 - k(2 delta)/2) / D >= 0
(Sutherland & Schneider 2015). For the RBF kernel k(2 delta) = k(delta)^4.
At delta = 0 the paired estimate is exactly 1; the cos + b one still varies.

The experiment: x = 0 and points y at distances 0, 0.5, 1 and 2 (gamma = 0.5),
R independent draws of D = 10, 100 and 1000 features of each variant
(:class:`kernelkit.features.RandomFourierFeatures`; one fit with R D
features is R independent maps of D features, one per block of columns).
The table gives the mean of the R estimates against k (in standard errors)
and their variance against the closed forms.

Run: ``python examples/rff_unbiasedness.py`` (about 10 seconds)
"""

import argparse

import numpy as np

from kernelkit.features import RandomFourierFeatures
from kernelkit.kernels import RBF

GAMMA = 0.5
DISTANCES = (0.0, 0.5, 1.0, 2.0)
N_FEATURES = (10, 100, 1000)
VARIANTS = ("cos_bias", "paired")


def k(delta):
    """The RBF kernel as a function of the distance."""
    return np.exp(-GAMMA * np.asarray(delta, dtype=np.float64) ** 2)


def feature_variance(delta, variant):
    """Closed-form variance of the estimate from D = 1 feature-equivalent (times 1/D for D)."""
    if variant == "cos_bias":
        return 1.0 + k(2 * delta) / 2.0 - k(delta) ** 2
    return 1.0 + k(2 * delta) - 2.0 * k(delta) ** 2  # D/2 frequencies: 2 * ((1 + k2)/2 - k^2)


def points(d=3, seed=0):
    """x = 0 and one point y at each distance, along one random direction."""
    u = np.random.default_rng(seed).normal(size=d)
    u /= np.linalg.norm(u)
    return np.vstack([np.zeros(d)] + [delta * u for delta in DISTANCES])


def estimates(P, D, n_draws, variant, seed):
    """(n_distances, n_draws) estimates z(x)'z(y_i) of R independent maps of D features."""
    rff = RandomFourierFeatures(RBF(gamma=GAMMA), n_components=n_draws * D, variant=variant,
                                random_state=seed).fit(P)
    Z = rff.transform(P)
    prod = Z[0] * Z[1:]  # (n_distances, R D): products feature by feature
    if variant == "cos_bias":  # columns j D .. (j + 1) D - 1 are the j-th map
        return n_draws * prod.reshape(len(prod), n_draws, D).sum(axis=2)
    m = prod.shape[1] // 2  # paired: [cos of m frequencies, sin of the same m]
    half = D // 2
    return n_draws * (prod[:, :m].reshape(len(prod), n_draws, half).sum(axis=2)
                      + prod[:, m:].reshape(len(prod), n_draws, half).sum(axis=2))


def run(quick=False):
    """Means and variances of R draws of z(x)'z(y) for each variant, D and distance."""
    n_draws = 1000 if quick else 5000
    P = points()
    exact = k(DISTANCES)
    samples = {}
    print(f"RBF kernel, gamma = {GAMMA}; {n_draws} independent draws of each feature map\n")
    print(f"{'variant':>8s} {'D':>5s} {'delta':>5s} {'k':>7s} {'mean':>8s} {'(m-k)/se':>9s} "
          f"{'var':>10s} {'closed form':>11s} {'ratio':>6s}")
    rows = []
    for variant in VARIANTS:
        for i, D in enumerate(N_FEATURES):
            E = estimates(P, D, n_draws, variant, seed=100 * i + len(variant))
            samples[variant, D] = E
            for delta, kd, e in zip(DISTANCES, exact, E):
                var, closed = float(np.var(e, ddof=1)), float(feature_variance(delta, variant) / D)
                se = np.sqrt(closed / n_draws)
                z = (e.mean() - kd) / se if se > 0 else 0.0
                ratio = var / closed if closed > 0 else 1.0
                rows.append({"variant": variant, "D": D, "delta": delta, "k": float(kd),
                             "mean": float(e.mean()), "z": float(z), "var": var,
                             "closed_form": closed, "ratio": ratio})
                print(f"{variant:>8s} {D:5d} {delta:5.1f} {kd:7.4f} {e.mean():8.4f} {z:9.2f} "
                      f"{var:10.3e} {closed:11.3e} {ratio:6.3f}")
    return {"n_draws": n_draws, "gamma": GAMMA, "distances": DISTANCES, "n_features": N_FEATURES,
            "rows": rows, "samples": samples, "points": P}


def plot(results):
    """Histograms of the estimates at delta = 1; variance against D; variance x D against delta."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(14, 4.2), layout="constrained")
    hist, vs_d, vs_delta = fig.subplots(1, 3)
    j = results["distances"].index(1.0)
    for D in results["n_features"]:
        hist.hist(results["samples"]["cos_bias", D][j], bins=60, histtype="step", density=True,
                  label=f"D = {D}")
    hist.axvline(float(k(1.0)), color="k", ls="--", label="k(x, y)")
    hist.set_title("z(x)'z(y) over draws (cos + b, delta = 1)")
    hist.legend(fontsize=8)
    Ds = np.array(results["n_features"])
    for variant, color in zip(VARIANTS, ("tab:blue", "tab:orange")):
        var = [r["var"] for r in results["rows"]
               if r["variant"] == variant and r["delta"] == 1.0]
        vs_d.loglog(Ds, var, "o", color=color, label=f"{variant}: measured")
        vs_d.loglog(Ds, feature_variance(1.0, variant) / Ds, "-", color=color,
                    label=f"{variant}: closed form / D")
        grid = np.linspace(0, 3, 200)
        vs_delta.plot(grid, feature_variance(grid, variant), color=color,
                      label=f"{variant}: closed form")
        for D, marker in zip(results["n_features"], "os^"):
            pts = [(r["delta"], r["var"] * D) for r in results["rows"]
                   if r["variant"] == variant and r["D"] == D]
            vs_delta.plot(*zip(*pts), marker, color=color, mfc="none")
    vs_d.set_xlabel("D")
    vs_d.set_ylabel("variance of z(x)'z(y)")
    vs_d.set_title("variance ~ 1/D (delta = 1)")
    vs_d.legend(fontsize=8)
    vs_delta.set_xlabel("delta = ||x - y||")
    vs_delta.set_ylabel("D x variance")
    vs_delta.set_title("D x variance (o, s, ^: D = 10, 100, 1000)")
    vs_delta.legend(fontsize=8)
    return fig


def main(argv=None):
    parser = argparse.ArgumentParser(description="Unbiasedness of random Fourier features.")
    parser.add_argument("--quick", action="store_true", help="fewer draws (a test run)")
    parser.add_argument("--out", default="rff_unbiasedness.png", help="PNG file to write")
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
