"""Random features + a GLM: kernelkit's least squares and logistic regression on the same
q = 30 features as scikit-learn's LinearRegression and LogisticRegression."""

import numpy as np
import pytest
from sklearn.linear_model import LinearRegression, LogisticRegression

from gallery._load import load_example

ex = load_example("random_feature_glm")


@pytest.fixture(scope="module")
def res():
    return ex.run(quick=True)


@pytest.fixture(scope="module")
def data():
    return ex.datasets(quick=True)


def _reference_row(name, data):
    """The table's row recomputed with scikit-learn on the example's features."""
    (Xr, yr, Xr_test, yr_test), (Xc, yc, Xc_test, yc_test) = data
    fr = ex.feature_maps(Xr.shape[1])[name].fit(Xr)
    fc = ex.feature_maps(Xc.shape[1])[name].fit(Xc)
    pred = LinearRegression().fit(fr.transform(Xr), yr).predict(fr.transform(Xr_test))
    # the constant column is the (penalised) intercept: fit_intercept=False on [z, 1]
    Zc, Zc_test = (np.hstack([f, np.ones((len(f), 1))]) for f in (fc.transform(Xc),
                                                                   fc.transform(Xc_test)))
    sk = LogisticRegression(C=ex.C, fit_intercept=False, solver="newton-cholesky", tol=1e-12,
                            max_iter=1000)
    proba = sk.fit(Zc, yc).predict_proba(Zc_test)[:, list(sk.classes_).index(1)]
    p_true = np.where(yc_test == 1, proba, 1.0 - proba)
    return {"rmse": np.sqrt(np.mean((pred - yr_test) ** 2)),
            "r2": 1.0 - np.mean((pred - yr_test) ** 2) / np.var(yr_test),
            "accuracy": np.mean(np.where(proba > 0.5, 1, -1) == yc_test),
            "log_loss": -np.mean(np.log(p_true))}, pred, proba


@pytest.mark.parametrize("name", ["raw inputs (linear)", "random Fourier (RBF)",
                                  "sinks: sigmoid", "sinks: bump"])
def test_table_row_matches_scikit_learn(res, data, name):
    row = res["rows"][name]
    ref, pred, proba = _reference_row(name, data)
    assert np.max(np.abs(row["prediction"] - pred)) < 1e-8 * np.max(np.abs(pred))
    assert np.max(np.abs(row["probability"] - proba)) < 1e-5
    assert row["rmse"] == pytest.approx(ref["rmse"], rel=1e-8)
    assert row["r2"] == pytest.approx(ref["r2"], abs=1e-8)
    assert row["log_loss"] == pytest.approx(ref["log_loss"], abs=1e-5)
    assert abs(row["accuracy"] - ref["accuracy"]) <= 1.0 / len(data[1][3])
    assert row["q"] == (data[0][0].shape[1] if name.startswith("raw") else 30) and ex.Q == 30


def test_random_features_beat_the_linear_glm_on_banana(res):
    rows = res["rows"]
    linear = rows["raw inputs (linear)"]["accuracy"]
    assert all(rows[n]["accuracy"] > linear + 0.2 for n in rows if n != "raw inputs (linear)")


def test_plot(res):
    fig = ex.plot(res)
    assert len(fig.axes) == 2
    assert len(fig.axes[0].patches) == len(res["rows"])
