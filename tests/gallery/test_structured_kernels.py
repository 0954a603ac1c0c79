"""The structured-kernels gallery page: its SVM accuracies equal scikit-learn's SVC on
Gram matrices computed by brute force (the mean embeddings by a double loop over the
points of two bags, the tree kernel by listing every fragment of both trees, the
spectrum kernel by counting trigrams), and the story's claims hold: the two kinds of
bags share their mean and covariance, the two parses share their words."""

import itertools
from collections import Counter

import numpy as np
import pytest
from sklearn.svm import SVC

from gallery._load import load_example

ex = load_example("structured_kernels")


@pytest.fixture(scope="module")
def res():
    return ex.run(quick=True)


def _k0(name):
    if name.startswith("linear"):
        return lambda A, B: A @ B.T
    if name.startswith("polynomial"):
        return lambda A, B: (A @ B.T + 1.0) ** 2
    return lambda A, B: np.exp(-ex.GAMMA * ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1))


def _embedding_gram(X, Y, k0):
    """<mu_A, mu_B> = mean over the |A| |B| pairs of points of k0, bag pair by bag pair."""
    return np.array([[k0(A, B).mean() for B in Y] for A in X])


def _svc_accuracy(K_train, y, K_test, y_test, C):
    return SVC(kernel="precomputed", C=C).fit(K_train, y).score(K_test, y_test)


def test_set_accuracies_equal_svc_on_the_brute_force_gram(res):
    for i, size in enumerate(res["sizes"]):
        (X, y), (Xt, yt) = res["set_data"][size]
        for name, accs in res["set_accuracy"].items():
            k0 = _k0(name)
            ref = _svc_accuracy(_embedding_gram(X, X, k0), y, _embedding_gram(Xt, X, k0), yt,
                                res["C"])
            assert accs[i] == pytest.approx(ref), (name, size)


def test_the_story_of_the_bags(res):
    # the ring's covariance r^2 / 2 + noise^2 equals the Gaussian's: 1 on each axis
    assert ex.RING_RADIUS ** 2 / 2 + ex.RING_NOISE ** 2 == pytest.approx(1.0, abs=1e-15)
    X, y = ex.bags(4000, 1, seed=0)
    P = np.concatenate(X)
    for label in (0, 1):
        Q = P[y == label]
        np.testing.assert_allclose(Q.mean(axis=0), 0.0, atol=0.08)
        np.testing.assert_allclose(np.cov(Q.T), np.eye(2), atol=0.1)
    rbf = res["set_accuracy"][next(n for n in res["set_accuracy"] if n.startswith("RBF"))]
    lin = res["set_accuracy"][next(n for n in res["set_accuracy"] if n.startswith("linear"))]
    assert rbf[-1] >= 0.9 and max(lin) <= 0.65  # the distribution, not the mean


def test_mean_random_features_approximate_the_embedding(res):
    """Each entry of Z Z' averages D bounded terms (|z_i(a) z_i(b)| <= 2 / D): Hoeffding
    with a union bound over the n^2 entries bounds the largest error at confidence 1e-3."""
    n = res["n_train"]
    bound = np.sqrt(8 * np.log(2 * n * n / 1e-3) / res["n_rff"])
    assert max(res["rff_max_error"]) < bound
    for a, b in zip(res["rff_accuracy"], res["set_accuracy"][f"RBF, gamma = {ex.GAMMA:g}"]):
        assert a >= b - 0.1


def _fragments(t):
    """Counter of (text, size) of every subset tree of a nested-tuple tree."""
    out = Counter()

    def rooted(node):
        if isinstance(node, str):
            return []
        options = [[(c, 0)] if isinstance(c, str) else [(c[0], 0)] + rooted(c)
                   for c in node[1:]]
        here = [("(" + node[0] + " " + " ".join(x for x, _ in combo) + ")",
                 1 + sum(s for _, s in combo)) for combo in itertools.product(*options)]
        out.update(here)
        return here

    rooted(t)
    return out


def _tree_grams(A, B, decays):
    """Normalised K(A, B) for each decay: the fragments of all trees as columns of count
    matrices, K = F_A diag(decay^size) F_B' (one sparse product per decay)."""
    import scipy.sparse as sp

    counts = [_fragments(t) for t in list(A) + list(B)]
    vocab = {key: j for j, key in enumerate({key for c in counts for key in c})}
    rows = [i for i, c in enumerate(counts) for _ in c]
    cols = [vocab[key] for c in counts for key in c]
    vals = [v for c in counts for v in c.values()]
    F = sp.csr_matrix((vals, (rows, cols)), shape=(len(counts), len(vocab)), dtype=float)
    size = np.empty(len(vocab))
    for (_, s), j in vocab.items():
        size[j] = s
    FA, FB = F[:len(A)], F[len(A):]
    out = []
    for decay in decays:
        W = sp.diags(decay ** size)
        K = (FA @ W @ FB.T).toarray()
        da = np.asarray(FA.multiply(FA @ W).sum(axis=1)).ravel()
        db = np.asarray(FB.multiply(FB @ W).sum(axis=1)).ravel()
        out.append(K / np.sqrt(np.outer(da, db)))
    return out


def _trigram_gram(A, B):
    ca = [Counter(s[i:i + 3] for i in range(len(s) - 2)) for s in A]
    cb = [Counter(s[i:i + 3] for i in range(len(s) - 2)) for s in B]

    def k(f, g):
        return sum(c * g[x] for x, c in f.items())

    K = np.array([[k(f, g) for g in cb] for f in ca], dtype=float)
    return K / np.sqrt(np.outer([k(f, f) for f in ca], [k(g, g) for g in cb]))


def test_tree_accuracies_equal_svc_on_the_brute_force_gram(res):
    (T, y), (Tt, yt) = res["tree_data"]
    grams = _tree_grams(list(T) + list(Tt), T, res["decays"])
    for decay, acc, K in zip(res["decays"], res["tree_accuracy"], grams):
        ref = _svc_accuracy(K[:len(T)], y, K[len(T):], yt, res["C"])
        assert acc == pytest.approx(ref), decay
    words = [" ".join(ex.leaves(t)) for t in T]
    words_t = [" ".join(ex.leaves(t)) for t in Tt]
    ref = _svc_accuracy(_trigram_gram(words, words), y, _trigram_gram(words_t, words), yt,
                        res["C"])
    assert res["yield_accuracy"] == pytest.approx(ref)
    assert min(res["tree_accuracy"]) == 1.0 and res["yield_accuracy"] <= 0.7
    # the decision values drawn are the SVM's that scored 1.0 (decay 0.4): signs = classes
    assert ((res["tree_decision"] > 0) == (res["tree_test_labels"] == 1)).all()


def test_the_two_parses_share_their_words():
    a = ex.sentence(np.random.default_rng(3), attach_to_verb=True)
    b = ex.sentence(np.random.default_rng(3), attach_to_verb=False)
    assert ex.leaves(a) == ex.leaves(b) and a != b


def test_plot(res):
    fig = ex.plot(res)
    axes = fig.get_axes()
    assert len(axes) == 4
    assert axes[1].get_xlabel() == "points per bag"
    assert "subset-tree" in axes[2].get_title() and axes[2].get_xlabel().startswith("SVM")
    assert len(axes[3].patches) == len(res["decays"]) + 1
