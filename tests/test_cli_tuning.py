"""kernelkit fit searches gamma with alpha (ridge) or C (svm, logistic): the command's
choice against the Python equivalent (KernelRidgeCV, GridSearchCV) on the same rows and
grid, the grid-edge message, --model and --proba end to end, integer labels."""

import json

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from kernelkit.cli import main
from kernelkit.cli import fitting, search
from kernelkit.kernels import RBF
from kernelkit.models import KernelLogisticRegression, KernelRidgeCV, KernelSVC


def _write(path, X, y, label=lambda v: repr(float(v))):
    lines = [",".join([f"x{j}" for j in range(X.shape[1])] + ["y"])]
    lines += [",".join(repr(float(v)) for v in row) + "," + label(t) for row, t in zip(X, y)]
    path.write_text("\n".join(lines) + "\n")
    return path


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _regression(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3)) * [1.0, 10.0, 0.1]
    y = np.sin(X[:, 0]) + 0.05 * X[:, 1] + 0.1 * rng.normal(size=n) + 5.0
    return X, y


def _classes(n=90, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.where(X[:, 0] > 1.0, 2, np.where(X[:, 0] ** 2 + X[:, 1] ** 2 > 1.2, 1, 0))
    return X, y  # three integer classes: 0, 1, 2


def _loo_reference(X, Y, rows, alphas):
    """KernelRidgeCV over the CLI's grid on the CLI's training rows, scaled the same way."""
    Xs, Y = StandardScaler().fit_transform(X[rows]), Y[rows]
    scale = 1.0 / (Xs.shape[1] * Xs.var())
    gammas = [scale * f for f in search.GAMMA_FACTORS]
    cv = KernelRidgeCV(kernel=RBF(), alphas=list(alphas), param_grid={"gamma": gammas})
    if "fit_intercept" in cv.get_params():
        cv.set_params(fit_intercept=True, solver="exact", cv="loo")
    else:
        Y = Y - Y.mean(axis=0)
    cv.fit(Xs, Y)
    return float(cv.kernel_.gamma), float(cv.alpha_)


def test_regression_choice_equals_kernel_ridge_cv(tmp_path, capsys):
    X, y = _regression()
    path = _write(tmp_path / "r.csv", X, y)
    code, out, err = _run(capsys, "fit", path, "--target", "y", "--out", tmp_path / "r.kk",
                          "--json")
    assert code == 0, err
    doc = json.loads(out)
    train, _ = fitting._split(len(y), 0.2, 0)
    gamma, alpha = _loo_reference(X, y, train, search.ALPHA_GRID)
    assert doc["chosen"]["gamma"] == pytest.approx(gamma, rel=1e-12)
    assert doc["chosen"]["alpha"] == alpha
    assert f"RBF(gamma={gamma!r})" == doc["kernel"]
    notes = " ".join(doc["notes"])
    assert "exact leave-one-out on all 96 training rows" in notes and "7 gammas" in notes


def test_ridge_classifier_choice_equals_kernel_ridge_cv_on_the_coding(tmp_path, capsys):
    from sklearn.preprocessing import LabelBinarizer

    X, y = _classes()
    path = _write(tmp_path / "c.csv", X, y, label=str)
    code, out, err = _run(capsys, "fit", path, "--target", "y", "--out", tmp_path / "c.kk",
                          "--json", "--holdout", "0")
    assert code == 0, err
    doc = json.loads(out)
    Y = LabelBinarizer(neg_label=-1, pos_label=1).fit_transform(y).astype(float)
    gamma, alpha = _loo_reference(X, Y, np.arange(len(y)), search.ALPHA_GRID)
    assert (doc["chosen"]["gamma"], doc["chosen"]["alpha"]) == pytest.approx((gamma, alpha),
                                                                             rel=1e-12)
    assert doc["validation_score"] is None and doc["task"] == "classify"


@pytest.mark.parametrize("model", ["svm", "logistic"])
def test_classifier_choice_equals_grid_search_cv(tmp_path, capsys, model):
    X, y = _classes(n=60)
    path = _write(tmp_path / "c.csv", X, y, label=str)
    train, _ = fitting._split(len(y), 0.2, 0)
    Xs = StandardScaler().fit_transform(X[train])
    if model == "svm":  # the default gamma grid around 'scale'
        Cs, extra = (0.1, 1.0, 10.0), ["--cv-C", "0.1,1,10"]
        gammas = [1.0 / (Xs.shape[1] * Xs.var()) * f for f in search.GAMMA_FACTORS]
        est = KernelSVC(kernel=RBF(), random_state=0)
    else:  # a grid of one's own (logistic fits are slower)
        Cs, gammas = (1.0, 30.0), [0.1, 0.5, 2.0]
        extra = ["--cv-C", "1,30", "--cv-gammas", "0.1,0.5,2"]
        est = KernelLogisticRegression(kernel=RBF(), random_state=0)
    code, out, err = _run(capsys, "fit", path, "--target", "y", "--model", model, *extra,
                          "--out", tmp_path / "m.kk", "--json")
    assert code == 0, err
    doc = json.loads(out)
    grid = GridSearchCV(est, {"kernel__gamma": gammas,
                              "C": list(Cs)}, scoring="accuracy", refit=False,
                        cv=StratifiedKFold(3, shuffle=True, random_state=0))
    grid.fit(Xs, y[train])
    # the command's choice is one of GridSearchCV's best (ties in accuracy are common on
    # 48 rows, and a warm-started solver may settle a tie within its tolerance otherwise)
    chosen = [i for i, p in enumerate(grid.cv_results_["params"])
              if p["C"] == doc["chosen"]["C"]
              and np.isclose(p["kernel__gamma"], doc["chosen"]["gamma"], rtol=1e-12)]
    assert len(chosen) == 1
    assert grid.cv_results_["mean_test_score"][chosen[0]] == pytest.approx(grid.best_score_)
    assert doc["estimator"].endswith(("KernelSVC)", "KernelLogisticRegression)"))
    assert "3-fold stratified cross-validation" in " ".join(doc["notes"])


def test_grid_edge_is_said_and_only_then(tmp_path, capsys):
    X, y = _regression()
    path = _write(tmp_path / "r.csv", X, y)
    # a nearly noise-free sine wants a small penalty: 1 and 10 are both too large
    code, _, err = _run(capsys, "fit", path, "--target", "y", "--gamma", "0.3",
                        "--cv-alphas", "1,10", "--out", tmp_path / "e.kk")
    assert code == 0, err
    assert "GridEdgeWarning" in err and "alpha=1 is the smallest" in err
    assert "widen it with --cv-alphas" in err
    code, _, again = _run(capsys, "fit", path, "--target", "y", "--gamma", "0.3",
                          "--cv-alphas", "1,10", "--out", tmp_path / "e.kk")
    assert "GridEdgeWarning" in again  # said by every run, not once per process
    # the same fit over a grid around the LOO optimum: said nowhere
    train, _ = fitting._split(len(y), 0.2, 0)
    Xs = StandardScaler().fit_transform(X[train])
    losses = []
    for alpha in search.ALPHA_GRID:
        cv = KernelRidgeCV(kernel=RBF(gamma=0.3), alphas=[alpha])
        if "fit_intercept" in cv.get_params():
            cv.set_params(fit_intercept=True, solver="exact", cv="loo")
            cv.fit(Xs, y[train])
        else:
            cv.fit(Xs, y[train] - y[train].mean())
        losses.append(cv.best_score_)
    best = int(np.argmin(losses))
    assert 0 < best < len(losses) - 1, losses  # the reference's optimum is inside
    code, _, err = _run(capsys, "fit", path, "--target", "y", "--gamma", "0.3",
                        "--out", tmp_path / "ok.kk")
    assert code == 0, err
    assert "GridEdgeWarning" not in err and "widen" not in err
    assert f"alpha: {search.ALPHA_GRID[best]:.4g} (" in err


def test_fixed_values_are_not_searched(tmp_path, capsys):
    X, y = _regression(n=50)
    path = _write(tmp_path / "r.csv", X, y)
    code, out, err = _run(capsys, "fit", path, "--target", "y", "--gamma", "0.25", "--alpha",
                          "0.01", "--out", tmp_path / "f.kk", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["kernel"] == "RBF(gamma=0.25)" and doc["alpha"] == 0.01
    assert doc["on_grid_edge"] == {} and "set with --gamma" in " ".join(doc["notes"])
    # a kernel whose gamma is written is kept; one left to 'scale' is searched
    code, out, err = _run(capsys, "fit", path, "--target", "y", "--kernel", "laplacian",
                          "--alpha", "0.01", "--out", tmp_path / "l.kk", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["kernel"].startswith("Laplacian(gamma=") and "gamma" in doc["chosen"]


def test_svm_with_proba_end_to_end(tmp_path, capsys):
    X, y = _classes()
    labels = np.array(["low", "ring", "far"])[y]
    train = _write(tmp_path / "train.csv", X[:70], labels[:70], label=str)
    test = _write(tmp_path / "test.csv", X[70:], labels[70:], label=str)
    code, _, err = _run(capsys, "fit", train, "--target", "y", "--model", "svm", "--proba",
                        "--gamma", "0.5", "--C", "10", "--out", tmp_path / "s.kk")
    assert code == 0, err
    code, out, err = _run(capsys, "predict", tmp_path / "s.kk", test, "--proba", "--out",
                          tmp_path / "p.csv")
    assert code == 0, err
    lines = (tmp_path / "p.csv").read_text().splitlines()
    assert lines[0] == "prediction,proba_far,proba_low,proba_ring"
    expected = make_pipeline(StandardScaler(), KernelSVC(kernel=RBF(gamma=0.5), C=10.0,
                                                         probability=True, random_state=0))
    expected.fit(X[:70], labels[:70])
    rows = [line.split(",") for line in lines[1:]]
    assert [r[0] for r in rows] == expected.predict(X[70:]).tolist()
    np.testing.assert_allclose([[float(v) for v in r[1:]] for r in rows],
                               expected.predict_proba(X[70:]), rtol=1e-10, atol=1e-12)


def test_logistic_proba_and_integer_labels(tmp_path, capsys):
    X, y = _classes()
    train = _write(tmp_path / "train.csv", X[:70], y[:70], label=str)
    test = _write(tmp_path / "test.csv", X[70:], y[70:], label=lambda v: f"{float(v)!r}")
    code, _, err = _run(capsys, "fit", train, "--target", "y", "--model", "logistic",
                        "--gamma", "0.5", "--C", "10", "--out", tmp_path / "g.kk")
    assert code == 0, err
    code, out, err = _run(capsys, "predict", tmp_path / "g.kk", test, "--proba", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["classes"] == [0, 1, 2]
    expected = make_pipeline(StandardScaler(), KernelLogisticRegression(
        kernel=RBF(gamma=0.5), C=10.0, random_state=0)).fit(X[:70], y[:70])
    assert doc["predictions"] == expected.predict(X[70:]).tolist()
    np.testing.assert_allclose(doc["probabilities"], expected.predict_proba(X[70:]),
                               rtol=1e-8, atol=1e-10)
    # the test file writes 1.0 for 1: still the same label
    assert doc["accuracy"] == pytest.approx(np.mean(expected.predict(X[70:]) == y[70:]))


def test_integer_labels_stay_integers_in_the_file(tmp_path, capsys):
    X, y = _classes()
    train = _write(tmp_path / "train.csv", X[:70], y[:70], label=str)
    test = _write(tmp_path / "test.csv", X[70:], y[70:], label=str)
    assert _run(capsys, "fit", train, "--target", "y", "--gamma", "0.5", "--alpha", "0.1",
                "--out", tmp_path / "k.kk")[0] == 0
    code, out, err = _run(capsys, "predict", tmp_path / "k.kk", test)
    assert code == 0, err
    values = out.splitlines()[1:]
    assert len(values) == 20 and set(values) <= {"0", "1", "2"}


@pytest.mark.parametrize("argv, fragment", [
    (["--model", "svm", "--alpha", "1"], "--model svm takes --C"),
    (["--C", "1"], "--C and --cv-C go with --model svm or logistic"),
    (["--proba"], "kernel ridge gives no class probabilities"),
    (["--model", "logistic", "--solver", "falkon"], "has its own"),
    (["--model", "svm", "--task", "regress"], "--task regress takes --model ridge"),
    (["--gamma", "1", "--cv-gammas", "1,2"], "either --gamma or --cv-gammas"),
    (["--gamma", "0"], "--gamma must be > 0"),
    (["--model", "svm", "--cv-C", "1,x"], "'x' is not a number"),
    (["--kernel", "rbf(gamma=0.1)", "--gamma", "1"], "no gamma left to choose"),
    (["--kernel", "linear", "--cv-gammas", "1,2"], "no gamma left to choose"),
])
def test_bad_combinations_are_one_line_usage_errors(tmp_path, capsys, argv, fragment):
    X, y = _regression(n=20)
    path = _write(tmp_path / "r.csv", X, y)
    code, _, err = _run(capsys, "fit", path, "--target", "y", "--out", tmp_path / "x.kk",
                        *argv)
    assert code == 2 and fragment in err and "Traceback" not in err, err
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "x.kk").exists()


def test_errors_that_need_the_data(tmp_path, capsys):
    X, y = _regression(n=40)
    path = _write(tmp_path / "r.csv", X, y)
    code, _, err = _run(capsys, "fit", path, "--target", "y", "--model", "svm",
                        "--out", tmp_path / "x.kk")
    assert code == 1 and "--model svm classifies, but the task is regression" in err
    assert len(err.strip().splitlines()) == 1
    # --proba at predict: a regression model, and an SVM fitted without probabilities
    assert _run(capsys, "fit", path, "--target", "y", "--gamma", "0.3", "--alpha", "0.1",
                "--out", tmp_path / "r.kk")[0] == 0
    code, _, err = _run(capsys, "predict", tmp_path / "r.kk", path, "--proba")
    assert code == 1 and "holds a regression model" in err
    Xc, yc = _classes(n=40)
    cpath = _write(tmp_path / "c.csv", Xc, yc, label=str)
    for extra, fragment in ((["--model", "svm", "--C", "1"], "fitted without probabilities"),
                            (["--alpha", "0.1"], "gives no class probabilities")):
        assert _run(capsys, "fit", cpath, "--target", "y", "--gamma", "0.5", *extra,
                    "--out", tmp_path / "c.kk")[0] == 0
        code, _, err = _run(capsys, "predict", tmp_path / "c.kk", cpath, "--proba")
        assert code == 1 and fragment in err and "--model svm --proba" in err, err


@pytest.mark.filterwarnings("ignore::kernelkit.tuning.grid.GridEdgeWarning")  # 2 values
def test_classifier_search_beyond_the_k_fold_size_uses_a_hold_out_quarter(monkeypatch):
    from sklearn.model_selection import train_test_split

    monkeypatch.setattr(search, "KFOLD_MAX_N", 40)
    X, y = _classes(n=80)
    settings = fitting.FitSettings(model="svm", cv_Cs=(0.1, 10.0), gamma=0.5)
    _, report = fitting.build_and_fit(X, y, settings)
    assert "a stratified hold-out quarter on all 64 training rows, seed 0" in \
        report["alpha_choice"]
    train, _ = fitting._split(80, 0.2, 0)
    Xs = StandardScaler().fit_transform(X[train])
    fit, val = train_test_split(np.arange(64), test_size=0.25, stratify=y[train],
                                random_state=0)
    accuracy = [KernelSVC(kernel=RBF(gamma=0.5), C=C).fit(Xs[fit], y[train][fit])
                .score(Xs[val], y[train][val]) for C in (0.1, 10.0)]
    assert report["values"]["C"] == (0.1, 10.0)[int(np.argmax(accuracy))]


def test_svm_on_a_string_kernel(tmp_path, capsys):
    rng = np.random.default_rng(4)
    seqs = ["".join(rng.choice(list("ab" if i % 2 else "bc"), 12)) for i in range(48)]
    path = tmp_path / "s.csv"
    path.write_text("seq,label\n" + "".join(f"{s},{i % 2}\n" for i, s in enumerate(seqs)))
    code, out, err = _run(capsys, "fit", path, "--target", "label", "--model", "svm",
                          "--kernel", "spectrum(k=2)", "--cv-C", "0.1,1", "--out",
                          tmp_path / "s.kk", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["chosen"]["C"] in (0.1, 1.0) and "gamma" not in doc["chosen"]
    assert doc["validation_score"] == 1.0  # the letters tell the classes apart


def test_falkon_values_by_gcv_of_the_nystroem_model(tmp_path, capsys):
    X, y = _regression(n=150)
    path = _write(tmp_path / "r.csv", X, y)
    code, out, err = _run(capsys, "fit", path, "--target", "y", "--solver", "falkon",
                          "--centers", "40", "--out", tmp_path / "f.kk", "--json")
    assert code == 0, err
    doc = json.loads(out)
    train, _ = fitting._split(len(y), 0.2, 0)
    Xs = StandardScaler().fit_transform(X[train])
    gammas = [f / (Xs.shape[1] * Xs.var()) for f in search.GAMMA_FACTORS]
    cv = KernelRidgeCV(kernel=RBF(), alphas=list(search.ALPHA_GRID), param_grid={
        "gamma": gammas}, solver="falkon", cv="gcv", n_centers=40, random_state=0)
    cv.fit(Xs, y[train])
    assert doc["chosen"]["gamma"] == pytest.approx(cv.best_params_["gamma"], rel=1e-12)
    assert doc["chosen"]["alpha"] == cv.alpha_ and doc["solver"] == "falkon"
    assert "GCV of the Nystroem model (40 centers) on all 120 training rows, seed 0" in \
        " ".join(doc["notes"])
