"""The demo runs on the bundled data, beats its baselines and reloads its model exactly."""

import json

import pytest

from kernelkit.cli import main
from kernelkit.demo import PARTS, format_demo, run_demo


@pytest.fixture(scope="module")
def quick_result(tmp_path_factory):
    return run_demo(quick=True, out_dir=tmp_path_factory.mktemp("demo"))


def _rows(result):
    part = next(p for p in result["parts"] if p["name"] == "regression")
    return part, {row["key"]: row for row in part["models"]}


def test_run_demo_quick(quick_result):
    part, rows = _rows(quick_result)
    assert [p["name"] for p in quick_result["parts"]] == [name for name, _, _ in PARTS]
    assert rows["rbf"]["test_rmse"] < rows["linear"]["test_rmse"]
    assert rows["rbf"]["test_rmse"] < rows["mean"]["test_rmse"]
    assert rows["linear"]["solver"] == "primal" and rows["poly"]["solver"] == "primal"
    assert rows["rbf"]["solver"] == "dual" and rows["rbf"]["n"] == part["dataset"]["n_train"]
    assert part["checks"]["linear_vs_sklearn_ridge"] < 1e-8
    assert part["checks"]["rbf_vs_sklearn_kernel_ridge"] < 1e-6
    assert part["persistence"]["identical"] is True
    assert part["persistence"]["file_size"] > 0
    assert "comp-activ (DELVE), via PMLB" in part["dataset"]["credit"]
    json.dumps(quick_result, allow_nan=False)  # JSON-ready as returned
    assert 0 < quick_result["compile_time"] < quick_result["wall_time"]


def test_warm_up_compiles_what_the_first_fits_would(monkeypatch):
    """After the warm-up, the demo's first timed fit (the linear SVM) compiles nothing:
    numba's dispatchers gain no new compiled signature."""
    import numba
    import numpy as np

    from kernelkit.demo.warmup import warm_up
    from kernelkit.models import KernelSVC

    warm_up()
    from kernelkit import _compiled

    def signatures():
        out = {}
        for mod in list(__import__("sys").modules.values()):
            if getattr(mod, "__name__", "").startswith("kernelkit._compiled"):
                for name, obj in vars(mod).items():
                    if isinstance(obj, numba.core.registry.CPUDispatcher):
                        out[(mod.__name__, name)] = len(obj.signatures)
        return out

    before = signatures()
    assert before and _compiled is not None
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 2))
    KernelSVC(kernel="linear").fit(X, (X[:, 0] > 0).astype(int))
    KernelSVC(kernel="rbf(gamma=1.0)").fit(X, (X[:, 0] > 0).astype(int))
    after = signatures()
    assert {k: v for k, v in after.items() if before.get(k, 0) != v} == {}


def test_format_demo(quick_result):
    text = format_demo(quick_result)
    for fragment in ("Compiled loops ready in", "test RMSE", "R^2", "RBF(gamma=", "Polynomial(degree=2, gamma=", "choice:",
                     "comp-activ (DELVE), via PMLB", "reloaded: predictions identical"):
        assert fragment in text


def test_cli_demo_quick_json(tmp_path, capsys):
    code = main(["demo", "--quick", "--json", "--out", str(tmp_path)])
    out, err = capsys.readouterr()
    assert code == 0, err
    result = json.loads(out)
    part, rows = _rows(result)
    assert part["persistence"]["identical"] is True
    assert (tmp_path / "cpu_act_rbf.kk").is_file()


def test_classification_part_beats_linear_and_agrees_with_libsvm(quick_result):
    part = next(p for p in quick_result["parts"] if p["name"] == "classification")
    acc = {row["key"]: row["accuracy"] for row in part["models"]}
    assert acc["svm"] > acc["linear_svm"] + 0.2  # banana is not linearly separable
    assert acc["logistic"] > acc["linear_svm"] + 0.2
    assert part["checks"]["svm_same_predictions_as_sklearn"] > 0.99
    assert part["checks"]["dual_objective_rel_diff"] < 1e-3
    assert "choice:" in part["plan"]["explanation"]


def test_scale_part_plans_falkon_and_stays_close_to_exact(quick_result):
    part = next(p for p in quick_result["parts"] if p["name"] == "scale")
    rows = {row["key"]: row for row in part["models"]}
    # The exact Gram matrix does not fit the part's budget: the planner must say so.
    assert part["checks"]["auto_solver"] == "falkon"
    assert "exceeds the memory budget" in part["plan"]["here"]
    assert "falkon" in part["plan"]["big"].split("choice:")[1]
    # Nystroem ridge with M centers is an approximation of the exact solve: close, not equal.
    assert rows["auto"]["test_rmse"] < 1.1 * rows["exact"]["test_rmse"]
    for key in ("rff", "nystroem"):
        assert rows[key]["r2"] > 0.5


def test_strings_part(quick_result):
    part = next(p for p in quick_result["parts"] if p["name"] == "strings")
    lec = part["lecture_example"]
    assert abs(lec["kernel"] - lec["closed_form"]) < 1e-12
    acc = {row["key"]: row["accuracy"] for row in part["models"]}
    assert acc["svm_wd"] > 0.9 and acc["svm_wd"] > acc["svm_spectrum"]
    assert part["persistence"]["identical"] is True
    assert part["kmeans"]["ari"] > 0.3
