"""Universal features: fitting 1-D functions with q random units, q = 5, 20, 100, 500.

A linear combination of q random features -- cosines cos(w x + b), ReLUs
max(0, s (x - c)) or steps 1[s (x - c) > 0] with random parameters -- can
approximate any continuous function on an interval as q grows. This script
fits a smooth sine, |x| and a step by least squares on q random features of
each kind, prints the error table and saves the picture.

Run: ``python examples/universal_features.py [--basis cosine|relu|step] [--out FILE]``
(the picture needs matplotlib: ``pip install matplotlib``, or ``pip install ".[plot]"``
from the repository).
"""

import argparse

from kernelkit.plotting import plot_universal_features, universal_features_fit

Q_VALUES = (5, 20, 100, 500)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--basis", default="cosine", choices=["cosine", "relu", "step"],
                        help="the random units of the picture (the table shows all three)")
    parser.add_argument("--out", default="universal_features.png", help="PNG file to write")
    args = parser.parse_args()

    print("RMSE on a grid of [-1, 1] of the least-squares fit on q random features\n")
    print(f"{'basis':>7}  {'target':>6}  " + "  ".join(f"q={q:<5d}" for q in Q_VALUES))
    results = {}
    for basis in ("cosine", "relu", "step"):
        results[basis] = res = universal_features_fit(Q_VALUES, basis=basis, random_state=0)
        for target, errors in res.errors.items():
            print(f"{basis:>7}  {target:>6}  " + "  ".join(f"{e:7.4f}" for e in errors))
    print("\nThe smooth sine needs few cosines; the kinks of |x| and the jump of the step "
          "need many more (random ReLUs and steps match those shapes better).")
    try:
        fig = plot_universal_features(results[args.basis])
    except ImportError:
        print("\nmatplotlib is not installed (pip install matplotlib): no picture")
        return
    fig.savefig(args.out, dpi=110)
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
