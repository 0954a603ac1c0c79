"""
Universal features: fitting 1-D functions with q random units, q = 5, 20, 100, 500
==================================================================================

Lecture: Random features -- universal features: a linear combination of q
random units fits any continuous 1-D function as q grows.

A linear combination of q random features -- cosines cos(w x + b), ReLUs
max(0, s (x - c)) or steps 1[s (x - c) > 0] with random parameters -- can
approximate any continuous function on an interval as q grows. This script
fits a smooth sine, ``|x|`` and a step by least squares on q random features of
each kind, prints the error table and saves the picture.

Run: ``python examples/universal_features.py [--basis cosine|relu|step] [--out FILE]``
(a few seconds; the picture needs matplotlib: ``pip install matplotlib``, or
``pip install ".[plot]"`` from the repository)
"""

import argparse

from kernelkit.plotting import plot_universal_features, universal_features_fit

Q_VALUES = (5, 20, 100, 500)
BASES = ("cosine", "relu", "step")


def run(quick=False, *, basis="cosine"):
    """The RMSE table of every basis; ``basis`` is the one the picture shows.

    Returns {"basis", "q_values", "fits": {basis: UniversalFeaturesFit}}.
    """
    print("RMSE on a grid of [-1, 1] of the least-squares fit on q random features\n")
    print(f"{'basis':>7}  {'target':>6}  " + "  ".join(f"q={q:<5d}" for q in Q_VALUES))
    fits = {}
    for name in BASES:
        fits[name] = res = universal_features_fit(Q_VALUES, basis=name, random_state=0,
                                                  **({"n_train": 600} if quick else {}))
        for target, errors in res.errors.items():
            print(f"{name:>7}  {target:>6}  " + "  ".join(f"{e:7.4f}" for e in errors))
    print("\nThe smooth sine needs few cosines; the kinks of |x| and the jump of the step "
          "need many more (random ReLUs and steps match those shapes better).")
    return {"basis": basis, "q_values": Q_VALUES, "fits": fits}


def plot(results):
    """The fits of the chosen basis (kernelkit.plotting.plot_universal_features)."""
    return plot_universal_features(results["fits"][results["basis"]])


def main(argv=None):
    parser = argparse.ArgumentParser(description="Universal features: q random units.")
    parser.add_argument("--basis", default="cosine", choices=list(BASES),
                        help="the random units of the picture (the table shows all three)")
    parser.add_argument("--out", default="universal_features.png", help="PNG file to write")
    parser.add_argument("--quick", action="store_true", help="fewer training points")
    args = parser.parse_args(argv)
    results = run(quick=args.quick, basis=args.basis)
    try:
        fig = plot(results)
    except ImportError:
        print("\nno picture (matplotlib is not installed: pip install matplotlib)")
        return
    fig.savefig(args.out, dpi=110)
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
