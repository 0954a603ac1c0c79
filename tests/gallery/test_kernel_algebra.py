"""The kernel algebra example: every closure rule keeps the Gram matrix PSD, sigmoid does not;
the text form is the object; gram in blocks and GramOperator equal the dense formulas."""

import numpy as np
import pytest
from sklearn.metrics.pairwise import chi2_kernel, rbf_kernel

from gallery._load import load_example
from kernelkit import config_context
from kernelkit.gram import gram
from kernelkit.kernels import RBF, CallableKernel, Sigmoid
from kernelkit.testing import check_kernel

ex = load_example("kernel_algebra")


@pytest.fixture(scope="module")
def res():
    return ex.run(quick=True)


def _rows(res):
    return {r["rule"] if r["rule"] != "kernel" else r["name"]: r for r in res["rows"]}


def test_every_rule_of_the_lectures_table_is_shown(res):
    rules = {r["rule"] for r in res["rows"]}
    assert {"Sum", "Product", "Scaled", "Power", "Exp", "Warped", "Composed", "Bilinear",
            "Callable", "parsed"} <= rules
    assert all(r["is_kernel_object"] for r in res["rows"])


def test_rules_stay_psd_and_sigmoid_does_not(res):
    X, H, C = ex.sample(res["n"])
    for r in res["rows"]:
        if r["name"].startswith("sigmoid"):
            continue
        assert r["is_psd"], r["name"]
        assert r["min_eig"] >= -1e-8 * r["max_eig"], r["name"]
        # K = Z Z' with the features of its eigendecomposition: an inner product
        assert r["features_error"] < 1e-10, r["name"]
    sig = _rows(res)["sigmoid tanh(x'y)"]
    assert not sig["claims_psd"] and not sig["is_psd"] and sig["n_negative"] > 0
    # independent: numpy's eigenvalues of tanh(X X') (gamma = 1, coef0 = 0)
    w = np.linalg.eigvalsh(np.tanh(X @ X.T))
    assert abs(sig["min_eig"] - w[0]) < 1e-10 * abs(w[-1])
    assert sig["n_negative"] == int(np.sum(w < -1e-8 * abs(w[-1])))
    # no real features reproduce it: the best Z Z' misses by at least |lambda_min| / n
    assert sig["features_error"] * np.abs(np.tanh(X @ X.T)).max() >= abs(w[0]) / res["n"]


def test_smallest_eigenvalues_against_closed_forms(res):
    X, H, C = ex.sample(res["n"])
    rows = _rows(res)
    closed = {
        "RBF exp(-2 ||x - y||^2)": rbf_kernel(X, gamma=2.0),
        "Chi2 on histograms": chi2_kernel(H, gamma=1.0),
        "Kronecker delta on categories": (C == C.T).astype(float),
        "Sum": rbf_kernel(X, gamma=2.0) + X @ X.T,
        "Power": (X @ X.T) ** 3,
        "Exp": np.exp(X @ X.T),
    }
    for key, K in closed.items():
        w = np.linalg.eigvalsh(K)
        assert abs(rows[key]["min_eig"] - w[0]) <= 1e-9 * w[-1], key
        assert abs(rows[key]["max_eig"] - w[-1]) <= 1e-9 * w[-1], key
    # the delta kernel's rank is the number of categories present: n - 4 zero eigenvalues
    w = rows["Kronecker delta on categories"]["spectrum"]
    assert np.sum(w > 1e-8 * w[0]) == len(np.unique(C))


def test_identities_of_the_rules_and_the_parser(res):
    X, _, _ = ex.sample(res["n"])
    ids = res["identities"]
    assert ids["warped_vs_rbf"] < 1e-12
    assert ids["bilinear_vs_XAX"] < 1e-12
    assert ids["callable_vs_spline0"] < 1e-12
    assert ids["parsed_equals_built"] and ids["parsed_repr_roundtrip"]
    assert ids["parsed_gram_vs_built"] == 0.0
    # gamma = "scale" is scikit-learn's rule 1 / (n_features Var X), computed here
    assert ids["scale_gamma"] == pytest.approx(1.0 / (3 * X.var()), rel=1e-12)
    assert ids["scale_gram_vs_resolved"] < 1e-12
    # the periodic kernel by Composed: shifting x_1 by 1 changes nothing
    k = ex.kernels(np.eye(3))[12][2]
    Y = X[:10] + np.array([1.0, 0.0, 0.0])
    assert np.max(np.abs(k(X[:10], X) - k(Y, X))) < 1e-12


def test_the_contract_holds_and_catches_a_false_psd_claim(res):
    checked = [r for r in res["rows"] if r["contract"] is not None]
    assert checked and all(r["contract"] for r in checked)

    class ClaimsPSD(CallableKernel):  # the sigmoid, wrongly claiming to be PSD
        @property
        def is_psd(self):
            return True

    X, _, _ = ex.sample(30)
    with pytest.raises(AssertionError, match="(?i)psd|eigen"):
        check_kernel(ClaimsPSD(lambda A, B: np.tanh(A @ B.T)), X)
    check_kernel(Sigmoid(gamma=1.0, coef0=0.0), X)  # honest about it: passes


def test_gram_in_blocks_and_the_operator(res):
    e = res["engine"]
    calls = e["block_calls"]
    assert e["n_blocks"] > 1 and sum(r for r, _ in calls) == e["n_big"]
    # block i of the symmetric K asks for the columns up to its last row only
    assert [c for _, c in calls] == list(np.cumsum([r for r, _ in calls]))
    assert e["entries_share"] < 0.6
    assert e["gram_vs_dense"] < 1e-12 and e["gram_rbf_vs_dense"] < 1e-12
    assert e["op_largest_call"] <= e["op_block_rows"] < e["n_op"]  # never all of K
    assert e["op_vs_dense"] < 1e-10
    assert e["cg_info"] == 0 and e["cg_vs_solve"] < 1e-6


def test_gram_in_a_small_budget_equals_scikit_learn():
    X = np.random.default_rng(5).normal(size=(600, 4))
    recorder = ex.RecordedGaussian()
    with config_context(memory="16MB"):
        K = gram(CallableKernel(recorder), X)
        K_rbf = gram(RBF(gamma=0.5), X)
    assert len(recorder.calls) > 1
    assert np.max(np.abs(K - rbf_kernel(X, gamma=0.5))) < 1e-12
    assert np.max(np.abs(K_rbf - rbf_kernel(X, gamma=0.5))) < 1e-12


def test_plot_has_the_two_panels(res):
    fig = ex.plot(res)
    assert len(fig.axes) == 2
    assert len(fig.axes[0].get_yticklabels()) == len(res["rows"])
