"""Deploying: every model's predictions identical after save/load, and the command line's
fit + predict equal to the pipeline it promises (standardised columns, kernel ridge with an
intercept) fitted here, with the same predictions from its model file loaded in Python."""

import numpy as np
import pytest
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from gallery._load import load_example
from kernelkit.kernels import RBF
from kernelkit.models import KernelRidge

ex = load_example("deploying")


@pytest.fixture(scope="module")
def res():
    return ex.run(quick=True)


def test_every_model_predicts_the_same_after_load(res):
    assert [r["model"] for r in res["rows"]] == list(ex.models())
    for r in res["rows"]:
        assert r["identical"] and r["max_difference"] == 0.0, r["model"]
        assert r["user_metadata"] == {"target": "usr"}
        assert r["bytes"] > 0
    by = {r["model"]: r for r in res["rows"]}
    # the exact ridge stores its n training rows; Falkon only its 100 centers
    assert by["KernelRidge(falkon, M=100)"]["bytes"] < by["KernelRidge"]["bytes"] / 2


def test_command_line_fit_predict_is_the_promised_pipeline(res):
    assert res["cli"] == {"fit": 0, "predict": 0, "info": 0, "plan": 0}
    assert res["cli_header"] == "prediction"
    ref = make_pipeline(StandardScaler(), KernelRidge(RBF(gamma=ex.GAMMA), alpha=ex.ALPHA,
                                                      fit_intercept=True))
    ref.fit(res["X_train"], res["y_train"])
    expected = ref.predict(res["X_test"])
    np.testing.assert_allclose(res["cli_pred"], expected, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(res["cli_loaded_pred"], expected, rtol=1e-10, atol=1e-10)
    rmse = np.sqrt(np.mean((expected - res["y_test"]) ** 2))
    assert f"{rmse:.6g}"[:5] in res["cli_output"]["predict"]
    info = res["cli_output"]["info"]
    assert "RBF(gamma=0.05)" in info and "n_features: 21" in info
    assert ", ".join(res["names"]) in info
    assert "choice:" in res["cli_output"]["plan"]


def test_plot(res):
    fig = ex.plot(res)
    assert len(fig.axes) == 2
    assert fig.axes[0].get_xlabel() == "model file size (KiB)"
