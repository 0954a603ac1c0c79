"""The order in which a path search's threads take its (candidate, fold) paths."""

import threading
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.model_selection import GridSearchCV, StratifiedKFold

from kernelkit.kernels import RBF
from kernelkit.models import KernelSVC, KernelSVCCV
from kernelkit.models._cv_path import LongestPathsFirst
from kernelkit.tuning import GridEdgeWarning


def test_first_folds_then_the_longest_candidates_folds():
    queue = LongestPathsFirst(3, 3)
    firsts = [queue.take() for _ in range(3)]
    assert firsts == [(0, 0), (1, 0), (2, 0)]
    for k, seconds in [(0, 1.0), (1, 5.0), (2, 3.0)]:
        queue.finished(k, 0, seconds)
    order = []
    while (task := queue.take()) is not None:
        order.append(task)
    assert order == [(1, 1), (1, 2), (2, 1), (2, 2), (0, 1), (0, 2)]


def test_a_candidate_still_running_its_first_fold_counts_as_the_longest():
    queue = LongestPathsFirst(2, 2)
    queue.take(), queue.take()
    queue.finished(0, 0, 2.0)  # candidate 1 not finished yet
    assert queue.take() == (1, 1)
    queue.finished(0, 1, 99.0)  # later folds do not change the ranking
    assert queue.take() == (0, 1)
    assert queue.take() is None


def test_every_path_is_handed_out_once_across_threads():
    queue = LongestPathsFirst(5, 4)
    taken, lock = [], threading.Lock()

    def worker():
        while (task := queue.take()) is not None:
            queue.finished(*task, float(task[0]))
            with lock:
                taken.append(task)

    threads = [threading.Thread(target=worker) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(taken) == [(k, f) for k in range(5) for f in range(4)]


def test_threaded_search_records_the_order_and_equals_grid_search(monkeypatch):
    import kernelkit.models._cv_path as cv_path
    monkeypatch.setattr(cv_path, "fold_workers", lambda n, tasks: 2)
    X, y = make_classification(150, 4, random_state=1)
    folds = list(StratifiedKFold(3, shuffle=True, random_state=0).split(X, y))
    gammas, Cs = [0.05, 0.5, 2.0], [0.1, 1.0, 10.0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GridEdgeWarning)
        search = KernelSVCCV(RBF(gamma=1.0), Cs=Cs, param_grid={"gamma": gammas}, cv=folds,
                             tol=1e-8).fit(X, y)
    peer = GridSearchCV(KernelSVC(RBF(gamma=1.0), tol=1e-8),
                        {"C": Cs, "kernel__gamma": gammas}, cv=folds).fit(X, y)
    for params, score in zip(peer.cv_results_["params"], peer.cv_results_["mean_test_score"]):
        ours = search.cv_results_["params"].index({"C": params["C"],
                                                   "gamma": params["kernel__gamma"]})
        assert search.cv_results_["mean_test_score"][ours] == pytest.approx(score, abs=1e-6)
    assert search.best_params_ == {"C": peer.best_params_["C"],
                                   "gamma": peer.best_params_["kernel__gamma"]}
    records = {c.what: c.value for c in search.plan_.choices}
    assert records["folds in parallel"] == 2 and records["path order"] == "longest first"


def test_a_failing_path_stops_the_queue(monkeypatch):
    import kernelkit.models._cv_path as cv_path
    monkeypatch.setattr(cv_path, "fold_workers", lambda n, tasks: 2)
    X = np.random.default_rng(0).normal(size=(60, 3))
    y = np.zeros(60, dtype=int)
    y[:3] = 1  # a fold of one class
    folds = [(np.arange(3, 60), np.arange(3)), (np.arange(60), np.arange(3, 60))]
    with pytest.raises(ValueError, match="one class"):
        KernelSVCCV("rbf", Cs=[1.0], param_grid={"gamma": [0.1, 1.0]}, cv=folds).fit(X, y)
