"""Choosing hyperparameters: the path's LOO is scikit-learn's refits; KernelSVCCV's scores
are GridSearchCV's; the marginal likelihood is scikit-learn's GP one and LearnedKernelRidge
sits at its top; the Rademacher bound against exhaustive sign vectors."""

import itertools

import numpy as np
import pytest
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF as SkRBF
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
from sklearn.model_selection import GridSearchCV
from sklearn.svm import SVC

from gallery._load import load_example

ex = load_example("choosing_hyperparameters")


@pytest.fixture(scope="module")
def res():
    return ex.run(quick=True)


def test_path_loo_equals_refits_with_scikit_learn(res):
    X, y = res["X"], res["y"]
    for j in (0, len(res["alphas"]) // 3, len(res["alphas"]) - 2):
        alpha = res["alphas"][j]
        residuals = []
        for i in range(len(y)):
            keep = np.arange(len(y)) != i
            mean = y[keep].mean()
            sk = SkKernelRidge(alpha=alpha, kernel="rbf", gamma=ex.GAMMA)
            sk.fit(X[keep], y[keep] - mean)
            residuals.append(y[i] - sk.predict(X[i:i + 1])[0] - mean)
        assert res["loo_mse"][j] == pytest.approx(np.mean(np.square(residuals)), rel=1e-7)
    assert np.allclose(res["brute_force_mse"], res["loo_mse"][res["checked"]], rtol=1e-7)
    assert res["ridge_cv_alpha"] == res["path_best_alpha"]
    assert res["ridge_cv_criterion"] == "loo"


def test_svc_cv_scores_equal_grid_search(res):
    grid = GridSearchCV(SVC(kernel="rbf", gamma=ex.GAMMA, tol=1e-3), {"C": list(res["Cs"])},
                        cv=5).fit(res["X_svc"], res["y_svc"])
    scores = grid.cv_results_["mean_test_score"]
    # the warm-started optimum is the cold one to tol: at most one point of a fold may flip
    assert np.max(np.abs(scores - res["svc_cv_scores"])) <= 1.0 / (len(res["y_svc"]) / 5) + 1e-12
    assert res["svc_cv_scores"][np.argmax(res["Cs"] == res["svc_best_C"])] == pytest.approx(
        np.max(res["svc_cv_scores"]))


def test_marginal_likelihood_is_the_gp_one_and_the_learned_point_is_its_top(res):
    X, y = res["X"], res["y"]
    y0 = y - y.mean()
    for a_index, g_index in ((0, 0), (3, 7), (-1, -1)):
        gamma, alpha = res["gammas"][g_index], res["noise"][a_index]
        gp = GaussianProcessRegressor(SkRBF(length_scale=np.sqrt(0.5 / gamma)), alpha=alpha,
                                      optimizer=None).fit(X, y0)
        assert res["lml"][a_index, g_index] == pytest.approx(
            gp.log_marginal_likelihood_value_, rel=1e-8)
    # the learned point is at least as high as every grid point, and a local maximum
    assert res["learned_lml"] >= np.max(res["lml"]) - 1e-6
    params = ex.kernel_parameters(ex.RBF(gamma=res["learned_gamma"]))
    at = ex.log_marginal_likelihood(params, X, y0, res["learned_alpha"])
    assert at == pytest.approx(res["learned_lml"], abs=1e-6)
    for dg, da in ((1.05, 1), (1 / 1.05, 1), (1, 1.05), (1, 1 / 1.05)):
        near = ex.log_marginal_likelihood(ex.kernel_parameters(
            ex.RBF(gamma=res["learned_gamma"] * dg)), X, y0, res["learned_alpha"] * da)
        assert near <= at + 1e-9


def test_rademacher_bound_against_every_sign_vector(res):
    assert np.allclose(res["rademacher_bound"], 1 / np.sqrt(res["rademacher_n"]), rtol=1e-12)
    # exhaustively over the 2^10 sign vectors of 10 points: E sqrt(s'Ks)/n <= sqrt(tr K)/n
    X = res["X"][::6][:10]
    signs = np.array(list(itertools.product([-1.0, 1.0], repeat=10)))
    for gamma in (1e-3, 1.0, 1e3):
        K = ex.RBF(gamma=gamma)(X, X)
        exact = np.mean(np.sqrt(np.maximum(np.einsum("ij,jk,ik->i", signs, K, signs), 0))) / 10
        assert exact <= ex.rademacher_bound(K) + 1e-12
        assert ex.rademacher_bound(K) == pytest.approx(np.sqrt(np.trace(K)) / 10)
    assert exact == pytest.approx(ex.rademacher_bound(K), rel=1e-6)  # K = I: equality
    # the Monte-Carlo values lie below the bound (up to noise) and between the two limits
    mc, se = res["rademacher_monte_carlo"], res["rademacher_stderr"]
    assert np.all(mc <= res["rademacher_bound"] + 3 * se + 1e-12)
    assert abs(mc[0] - res["rademacher_constants"]) < 4 * se[0] + 1e-3
    n = res["rademacher_n"]
    assert res["rademacher_constants"] == pytest.approx(np.sqrt(2 / (np.pi * n)), rel=0.02)


def test_plot_has_the_four_panels(res):
    fig = ex.plot(res)
    assert len(fig.axes) == 5  # four panels and the surface's colour bar
