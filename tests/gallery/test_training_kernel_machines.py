"""Training kernel machines: SMO reaches scikit-learn's SVM, Pegasos approaches it from
above; Newton and L-BFGS reach the minimum of J found by scipy; Platt's sigmoid is the
maximum-likelihood fit of the notes; one-vs-one voting is scikit-learn's SVC; the
multinomial fit minimises its objective."""

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import log_softmax, logsumexp
from sklearn.svm import SVC

from gallery._load import load_example

ex = load_example("training_kernel_machines")


def _factor(K):
    """B with K = B B' (numpy's eigh, eigenvalues above 1e-12 kept)."""
    w, Q = np.linalg.eigh(K)
    keep = w > 1e-12 * w.max()
    return Q[:, keep] * np.sqrt(w[keep])


@pytest.fixture(scope="module")
def res():
    return ex.run(quick=True)


def test_smo_matches_scikit_learn_and_pegasos_approaches_from_above(res):
    X, y = res["X"], res["y"]
    sk = SVC(kernel="rbf", gamma=1.0, C=ex.C, tol=1e-8).fit(X, y)
    K = ex.KERNEL(X, X)
    alpha = np.zeros(len(y))
    alpha[sk.support_] = np.abs(sk.dual_coef_[0])
    assert res["smo_optimum"] == pytest.approx(
        ex.svm_primal(K, y, alpha, sk.intercept_[0]), rel=1e-6)
    # weak duality and strong duality at the optimum
    assert res["smo_dual"] <= res["smo_optimum"] + 1e-9
    assert res["smo_optimum"] - res["smo_dual"] < 1e-6 * res["smo_optimum"]
    assert min(res["smo_gap"]) < 1e-6 and np.all(np.array(res["smo_suboptimality"]) >= -1e-9)
    peg = np.array(res["pegasos_suboptimality"])
    assert np.all(peg > 0)  # no offset: never below the optimum with one
    assert peg[-1] < peg[0] / 20  # and it closes in on it
    assert peg[-1] > res["smo_suboptimality"][-1]


def test_newton_and_lbfgs_reach_scipys_minimum(res):
    X, y = res["X"], res["y"]
    K, n, lam = ex.KERNEL(X, X), len(y), ex.LAM

    def J(u):
        f = K @ u
        return 0.5 * lam * u @ f + np.mean(np.logaddexp(0, -y * f))

    # the reference in the variables v of f = B v, K = B B' (well conditioned, fast)
    B = _factor(K)

    def J_v(v):
        f = B @ v
        return 0.5 * lam * v @ v + np.mean(np.logaddexp(0, -y * f))

    def grad_v(v):
        return lam * v + B.T @ (-y / (1 + np.exp(y * (B @ v)))) / n

    ref = minimize(J_v, np.zeros(B.shape[1]), jac=grad_v, method="L-BFGS-B",
                   options={"gtol": 1e-10, "ftol": 1e-15, "maxiter": 5000})
    for key in ("newton", "lbfgs"):
        assert res[key + "_objective"] <= ref.fun + 1e-8
        assert res[key + "_objective"] == pytest.approx(J(res[key + "_coef"]), rel=1e-12)
    assert res["newton_n_iter"] < res["lbfgs_n_iter"]
    assert np.max(np.abs(K @ res["newton_coef"] - K @ res["lbfgs_coef"])) < 1e-4


def test_platt_sigmoid_is_the_maximum_likelihood_fit(res):
    f, labels = res["calibration_scores"], res["calibration_labels"]
    n_pos, n_neg = np.sum(labels > 0), np.sum(labels <= 0)
    t = np.where(labels > 0, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))  # Platt's targets

    def nll(ab):
        z = ab[0] * f + ab[1]  # P(y=1) = 1 / (1 + exp(z))
        return np.sum(t * np.logaddexp(0, z) + (1 - t) * np.logaddexp(0, -z))

    ref = minimize(nll, [0.0, 0.0], method="BFGS", options={"gtol": 1e-10})
    assert res["platt_A"] == pytest.approx(ref.x[0], abs=1e-4)
    assert res["platt_B"] == pytest.approx(ref.x[1], abs=1e-4)
    assert res["platt_A"] < 0  # larger scores, higher probability of +1


def test_pair_grams_and_one_vs_one_voting(res):
    X, y, starts = res["X3"], res["y3"], res["starts"]
    K = ex.KERNEL(X, X)
    pairs = []
    for a, b, K_ab in ex.pair_grams(ex.KERNEL, X, starts):
        rows = np.r_[starts[a]:starts[a + 1], starts[b]:starts[b + 1]]
        assert np.allclose(K_ab, K[np.ix_(rows, rows)], rtol=0, atol=1e-12)
        pairs.append((a, b))
    assert pairs == [(0, 1), (0, 2), (1, 2)]
    sk = SVC(kernel="rbf", gamma=1.0, C=ex.C, tol=1e-6).fit(X, y)  # one-vs-one inside
    assert np.mean(sk.predict(res["X3_test"]) == res["ovo_predictions"]) >= 0.99
    assert res["ovo_accuracy"] > 0.7 and res["multinomial_accuracy"] > 0.7


def test_multinomial_minimises_its_objective(res):
    X, y = res["X3"], res["y3"]
    K, Y, lam, n = ex.KERNEL(X, X), np.eye(3)[res["y3"]], ex.LAM, len(y)

    def J(flat):
        U = flat.reshape(n, 3)
        F = K @ U
        return 0.5 * lam * np.sum(U * F) + np.sum(logsumexp(F, axis=1) - np.sum(F * Y, 1)) / n

    B = _factor(K)  # the reference in V, F = B V
    m = B.shape[1]

    def J_v(flat):
        V = flat.reshape(m, 3)
        F = B @ V
        return 0.5 * lam * np.sum(V * V) + np.sum(logsumexp(F, axis=1) - np.sum(F * Y, 1)) / n

    def grad_v(flat):
        V = flat.reshape(m, 3)
        return (lam * V + B.T @ (np.exp(log_softmax(B @ V, axis=1)) - Y) / n).ravel()

    ref = minimize(J_v, np.zeros(3 * m), jac=grad_v, method="L-BFGS-B",
                   options={"gtol": 1e-10, "ftol": 1e-15, "maxiter": 5000})
    assert res["multinomial_objective"] <= ref.fun + 1e-8
    assert res["multinomial_objective"] == pytest.approx(J(res["multinomial_coef"].ravel()),
                                                         rel=1e-10)


def test_plot_draws_four_panels(res):
    fig = ex.plot(res)
    assert len(fig.axes) == 4
    assert len(fig.axes[1].lines) == 2
