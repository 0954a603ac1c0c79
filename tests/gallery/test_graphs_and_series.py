"""The graphs-and-series gallery page: its SVM accuracies equal scikit-learn's SVC on Gram
matrices computed by brute force (the Weisfeiler-Lehman relabelling with string signatures,
the global alignment recursion in plain Python), and the Weisfeiler-Lehman blind spot (a
2m-cycle against two m-cycles: equal feature vectors at every h) gives chance accuracy."""

import math

import numpy as np
import pytest
from sklearn.svm import SVC

from gallery._load import load_example

ex = load_example("graphs_and_series")


@pytest.fixture(scope="module")
def res():
    return ex.run(quick=True)


def _wl_histograms(graphs, h):
    """Label histograms of every iteration, by the paper's string relabelling."""
    adjacency, labels = [], []
    for edges, lab in graphs:
        nbrs = [[] for _ in lab]
        for u, v in edges:
            nbrs[u].append(v)
            nbrs[v].append(u)
        adjacency.append(nbrs)
        labels.append([str(x) for x in lab])
    hists = [{} for _ in graphs]
    for it in range(h + 1):
        if it:
            labels = [[lab[v] + "(" + ",".join(sorted(lab[u] for u in nbrs[v])) + ")"
                       for v in range(len(lab))] for nbrs, lab in zip(adjacency, labels)]
        for hist, lab in zip(hists, labels):
            for x in lab:
                hist[(it, x)] = hist.get((it, x), 0) + 1
    return hists


def _cosine_gram(A, B, pair):
    K = np.array([[pair(a, b) for b in B] for a in A], dtype=float)
    da = np.array([pair(a, a) for a in A], dtype=float)
    db = np.array([pair(b, b) for b in B], dtype=float)
    return K / np.sqrt(np.outer(da, db))


def _svc_accuracy(K_train, y, K_test, y_test, C):
    return SVC(kernel="precomputed", C=C).fit(K_train, y).score(K_test, y_test)


def _hist_dot(a, b):
    return sum(c * b.get(k, 0) for k, c in a.items())


def test_wl_accuracies_equal_svc_on_the_brute_force_gram(res):
    # (the blind-spot problem is left out: its Gram matrix ties graphs of both classes,
    # and which of two tied labels a solver picks is not the kernel's business)
    for name, ((X, y), (Xt, yt)) in list(res["graph_data"].items())[:1]:
        for h, acc in zip(res["iterations"], res["wl_accuracy"][name]):
            H, Ht = _wl_histograms(X, h), _wl_histograms(Xt, h)
            ref = _svc_accuracy(_cosine_gram(H, H, _hist_dot), y,
                                _cosine_gram(Ht, H, _hist_dot), yt, res["C"])
            assert acc == pytest.approx(ref), (name, h)
    # paths have two nodes of degree 1, cycles none: one iteration separates them
    assert res["wl_accuracy"]["cycles vs paths"][1:] == [1.0] * 3


def test_wl_blind_spot(res):
    _, (Xt, yt) = res["graph_data"]["one 2m-cycle vs two m-cycles"]
    one = ([(v, (v + 1) % 8) for v in range(8)], [0] * 8)
    two = ([(v, (v + 1) % 4) for v in range(4)] + [(4 + v, 4 + (v + 1) % 4) for v in range(4)],
           [0] * 8)
    for h in range(4):
        a, b = _wl_histograms([one, two], h)
        assert a == b  # the same features: no kernel built on them separates the classes
    # so the features of a graph are a function of its size 2m alone, and no classifier on
    # them beats predicting the majority class of the test graphs of each size
    sizes = np.array([len(labels) for _, labels in Xt])
    best = sum(max(np.sum(yt[sizes == s] == c) for c in (0, 1)) for s in set(sizes)) / len(yt)
    assert best < 0.75
    assert max(res["wl_accuracy"]["one 2m-cycle vs two m-cycles"]) <= best


def _gak(x, y, sigma):
    """The global alignment recursion with kappa = k / (2 - k), k Gaussian, in plain Python."""
    M = [[0.0] * (len(y) + 1) for _ in range(len(x) + 1)]
    M[0][0] = 1.0
    for i in range(1, len(x) + 1):
        for j in range(1, len(y) + 1):
            k = math.exp(-(x[i - 1] - y[j - 1]) ** 2 / (2 * sigma ** 2))
            M[i][j] = k / (2 - k) * (M[i - 1][j - 1] + M[i - 1][j] + M[i][j - 1])
    return M[-1][-1]


def test_gak_accuracy_equals_svc_on_the_brute_force_gram(res):
    (X, y), (Xt, yt) = res["series_data"]
    sigma = 1.0
    i = res["sigmas"].index(sigma)
    X, Xt = [list(s) for s in X], [list(s) for s in Xt]

    def pair(a, b):
        return _gak(a, b, sigma)

    ref = _svc_accuracy(_cosine_gram(X, X, pair), y, _cosine_gram(Xt, X, pair), yt, res["C"])
    assert res["gak_accuracy"][i] == pytest.approx(ref)
    assert res["gak_accuracy"][i] >= 0.9
    assert res["gak_accuracy"][0] < res["gak_accuracy"][i]  # too small a sigma loses


def test_plot(res):
    fig = ex.plot(res)
    assert len(fig.axes) == 2
    assert fig.axes[1].get_xscale() == "log"
    assert fig.axes[0].get_xlabel() == "Weisfeiler-Lehman iterations h"
