"""
Kernels on sets and on trees
============================

Lecture: Kernels on structured data -- data that are not vectors: sets and
distributions (the mean-embedding kernel) and trees (the subset-tree kernel of
Collins and Duffy 2001).

A kernel only needs k(x, y) for two objects, so a support vector machine
learns on bags of points and on parse trees as it does on vectors.

**Sets as distributions.** A bag A = {a_1, ..., a_m} of points is a sample
of a distribution; its kernel mean embedding mu_A = mean_a phi(a) represents
it, and k(A, B) = <mu_A, mu_B> = mean_{a, b} k0(a, b) (Muandet et al. 2017).
Here the two classes are bags drawn from a standard Gaussian and from a noisy
ring with the *same mean and the same covariance*. With a linear k0 the
embedding is the bag's mean, with a degree-2 polynomial its first two
moments: both see two identical distributions and stay near chance. With the
RBF kernel (characteristic: the embedding determines the distribution) the
SVM tells the two apart, better as the bags grow and their empirical
distributions sharpen. Averaging random Fourier features of k0 over a bag
gives approximate embedding features, and a linear SVM on them does nearly
as well.

**Trees.** The subset-tree kernel counts the fragments (a node with all its
children, each child cut or expanded further) that two parse trees share,
each weighted by decay^size. The two classes here are the two readings of
"V the N with a N": the prepositional phrase attached to the verb ("saw the
man with a telescope": the telescope was used) or to the noun (the man had
it). Both classes have the same words in the same order, so any kernel on
the sentence string (here the spectrum kernel of the words' characters) is
blind to the class; the tree kernel sees the attachment.

The script prints the accuracy tables and draws bags, accuracies and the
tree SVM's decision values.

Run: ``python examples/structured_kernels.py`` (about 10 seconds)
"""

import argparse

import numpy as np

from kernelkit.features import RandomFourierFeatures
from kernelkit.kernels import Linear, MeanEmbedding, Polynomial, RBF, Spectrum, SubsetTree
from kernelkit.models import KernelSVC

C = 10.0
#: Width of the RBF base kernel on the points (unit-variance classes).
GAMMA = 1.0
#: Random Fourier features averaged over each bag.
N_RFF = 500
#: Decays of the subset-tree kernel.
DECAYS = (0.1, 0.4, 1.0)
#: Noise of the ring and its radius: r^2 / 2 + noise^2 = 1, the Gaussian's variance.
RING_NOISE = 0.1
RING_RADIUS = float(np.sqrt(2 * (1 - RING_NOISE ** 2)))

BASE_KERNELS = {"linear (the mean)": Linear(),
                "polynomial, degree 2 (two moments)": Polynomial(degree=2, gamma=1.0,
                                                                 coef0=1.0),
                f"RBF, gamma = {GAMMA:g}": RBF(gamma=GAMMA)}


# ---- sets ---------------------------------------------------------------------------
def bags(n, size, seed):
    """n bags of ``size`` 2-D points; label 0: N(0, I), label 1: a noisy ring, with the
    same mean (0) and covariance (I). Labels alternate."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    X = []
    for label in y:
        if label == 0:
            X.append(rng.normal(size=(size, 2)))
        else:
            t = rng.uniform(0, 2 * np.pi, size)
            X.append(RING_RADIUS * np.c_[np.cos(t), np.sin(t)]
                     + RING_NOISE * rng.normal(size=(size, 2)))
    return X, y


def mean_rff(rff, X):
    """Each bag's mean of random Fourier features: approximate embedding features."""
    return np.array([rff.transform(A).mean(axis=0) for A in X])


# ---- trees --------------------------------------------------------------------------
NOUNS = ("man", "dog", "park", "telescope", "hat", "girl", "tree", "cat")
VERBS = ("saw", "hit", "liked", "found")
ADJECTIVES = ("old", "big", "red")


def noun_phrase(rng, det):
    """(NP (D det) [(A adj)] (N noun)): an adjective half of the time."""
    noun = ("N", str(rng.choice(NOUNS)))
    if rng.random() < 0.5:
        return ("NP", ("D", det), ("A", str(rng.choice(ADJECTIVES))), noun)
    return ("NP", ("D", det), noun)


def sentence(rng, attach_to_verb):
    """ "the N V the N with a N", the PP attached to the verb (label 1) or the noun (0)."""
    subject, obj = noun_phrase(rng, "the"), noun_phrase(rng, "the")
    pp = ("PP", ("P", "with"), noun_phrase(rng, "a"))
    verb = ("V", str(rng.choice(VERBS)))
    vp = ("VP", verb, obj, pp) if attach_to_verb else ("VP", verb, ("NP", obj, pp))
    return ("S", subject, vp)


def leaves(tree):
    """The words of a nested-tuple tree, left to right."""
    if isinstance(tree, str):
        return [tree]
    return [w for child in tree[1:] for w in leaves(child)]


def trees(n, seed):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    return [sentence(rng, bool(label)) for label in y], y


def accuracy(kernel, X, y, X_test, y_test):
    return float((KernelSVC(kernel=kernel, C=C).fit(X, y).predict(X_test) == y_test).mean())


def run(quick=False):
    """Accuracies of the mean-embedding kernels by bag size and of the tree kernels."""
    n_train, n_test = (40, 40) if quick else (100, 200)
    sizes = (5, 20) if quick else (5, 10, 20, 50)
    res = {"sizes": list(sizes), "n_train": n_train, "n_test": n_test, "C": C,
           "gamma": GAMMA, "n_rff": N_RFF, "set_accuracy": {}, "rff_accuracy": [],
           "rff_max_error": [], "set_data": {}}
    for name in BASE_KERNELS:
        res["set_accuracy"][name] = []
    for size in sizes:
        train, test = bags(n_train, size, seed=size), bags(n_test, size, seed=1000 + size)
        res["set_data"][size] = (train, test)
        for name, k0 in BASE_KERNELS.items():
            res["set_accuracy"][name].append(accuracy(MeanEmbedding(k0), *train, *test))
        rff = RandomFourierFeatures(kernel=RBF(gamma=GAMMA), n_components=N_RFF,
                                    random_state=0).fit(np.zeros((1, 2)))
        Z, Zt = mean_rff(rff, train[0]), mean_rff(rff, test[0])
        res["rff_accuracy"].append(accuracy(Linear(), Z, train[1], Zt, test[1]))
        exact = MeanEmbedding(RBF(gamma=GAMMA))(train[0])
        res["rff_max_error"].append(float(np.abs(Z @ Z.T - exact).max()))

    n_trees = 30 if quick else 100
    (T, yt), (Tt, ytt) = trees(n_trees, seed=1), trees(n_trees, seed=2)
    res["tree_data"] = ((T, yt), (Tt, ytt))
    res["decays"] = list(DECAYS)
    res["tree_accuracy"] = [accuracy(SubsetTree(decay=d), T, yt, Tt, ytt) for d in DECAYS]
    words, words_t = [" ".join(leaves(t)) for t in T], [" ".join(leaves(t)) for t in Tt]
    res["yield_accuracy"] = accuracy(Spectrum(k=3), words, yt, words_t, ytt)
    svm = KernelSVC(kernel=SubsetTree(decay=0.4), C=C).fit(T, yt)
    res["tree_decision"] = svm.decision_function(Tt)
    res["tree_test_labels"] = ytt

    print(f"Bags of points (Gaussian vs ring, equal mean and covariance), SVM C = {C:g}, "
          f"{n_train} training and {n_test} test bags")
    print(f"{'accuracy by bag size':52s}" + "".join(f"{s:>8d}" for s in sizes))
    for name, accs in res["set_accuracy"].items():
        print(f"{'mean embedding, ' + name:52s}" + "".join(f"{a:8.3f}" for a in accs))
    print(f"{f'mean of {N_RFF} random Fourier features':52s}"
          + "".join(f"{a:8.3f}" for a in res["rff_accuracy"]))
    print(f"\nParse trees, PP attached to the verb or the noun ({n_trees} training and "
          f"{n_trees} test sentences)")
    for d, a in zip(DECAYS, res["tree_accuracy"]):
        print(f"{f'subset-tree kernel, decay {d:g}':52s}{a:8.3f}")
    print(f"{'spectrum (k=3) of the sentence string':52s}{res['yield_accuracy']:8.3f}")
    return res


def plot(results):
    """Four panels: bags of each class, accuracy by bag size, the tree SVM's decision
    values on the test sentences by class, the tree accuracies."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(13, 3.6), layout="constrained")
    ax_bags, ax_acc, ax_dec, ax_trees = fig.subplots(1, 4)
    size = results["sizes"][-1]
    (X, y), _ = results["set_data"][size]
    for label, colour, name in ((0, "tab:blue", "Gaussian"), (1, "tab:orange", "ring")):
        A = np.concatenate([a for a, c in zip(X, y) if c == label][:3])
        ax_bags.scatter(A[:, 0], A[:, 1], s=8, c=colour, label=f"{name} bags")
    ax_bags.set_aspect("equal")
    ax_bags.set_title(f"three bags of {size} points per class", fontsize=10)
    ax_bags.legend(fontsize=8)
    for name, accs in results["set_accuracy"].items():
        ax_acc.plot(results["sizes"], accs, marker="o", label=name.split(",")[0])
    ax_acc.plot(results["sizes"], results["rff_accuracy"], marker="s", ls="--",
                label="RBF, mean of RFF")
    ax_acc.axhline(0.5, color="grey", lw=0.8)
    ax_acc.set_xscale("log")
    ax_acc.set_xticks(results["sizes"], [str(s) for s in results["sizes"]])
    ax_acc.minorticks_off()
    ax_acc.set_xlabel("points per bag")
    ax_acc.set_ylabel("test accuracy")
    ax_acc.set_title("mean-embedding kernels", fontsize=10)
    ax_acc.legend(fontsize=8)
    f, labels = results["tree_decision"], results["tree_test_labels"]
    bins = np.linspace(f.min(), f.max(), 25)
    for label, colour, name in ((1, "tab:green", "PP on the verb"),
                                (0, "tab:purple", "PP on the noun")):
        ax_dec.hist(f[labels == label], bins=bins, color=colour, alpha=0.7, label=name)
    ax_dec.axvline(0.0, color="grey", lw=0.8)
    ax_dec.set_xlabel("SVM decision value, test sentence")
    ax_dec.set_title("subset-tree kernel (decay 0.4)", fontsize=10)
    ax_dec.legend(fontsize=8)
    names = [f"SST {d:g}" for d in results["decays"]] + ["spectrum\nof words"]
    ax_trees.bar(names, results["tree_accuracy"] + [results["yield_accuracy"]],
                 color=["tab:green"] * len(results["decays"]) + ["tab:grey"])
    ax_trees.axhline(0.5, color="grey", lw=0.8)
    ax_trees.set_ylim(0, 1.05)
    ax_trees.set_ylabel("test accuracy")
    ax_trees.set_title("PP attachment", fontsize=10)
    return fig


def main(argv=None):
    parser = argparse.ArgumentParser(description="Kernels on sets (mean embeddings) and "
                                     "on trees (subset trees) with an SVM.")
    parser.add_argument("--quick", action="store_true", help="fewer and smaller samples")
    parser.add_argument("--out", default="structured_kernels.png", help="PNG file to write")
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
