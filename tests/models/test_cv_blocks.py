"""The k-fold searches' shared blocks: roles named by the caller, safe from threads.

A fold whose held-out rows equal its training rows (a legal ``cv`` iterable) must
score on the held-out block, not on a training block written later into the same
buffer; and the fold threads must not enter numba parallel regions concurrently
(numba's workqueue threading layer aborts the process when they do).
"""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.model_selection import GridSearchCV
from sklearn.svm import SVC

from kernelkit.kernels import RBF
from kernelkit.models import KernelSVCCV
from kernelkit.tuning.distance_blocks import DistanceGram
from kernelkit.tuning.paths import squared_distances


def test_held_out_blocks_have_their_own_buffer_even_when_rows_repeat_the_training_rows():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    kernel = RBF(gamma=0.4)
    buffers = {}
    G = DistanceGram(squared_distances(X), kernel, kernel.sq_euclidean_profile(), buffers)
    idx = np.arange(30)
    held = G.held_out(idx, idx)
    order = idx[::-1]
    G[np.ix_(order, order)]  # a training block written after the held-out one
    np.testing.assert_allclose(held, rbf_kernel(X, gamma=0.4), rtol=1e-13, atol=1e-15)
    assert np.shares_memory(held, buffers["test"])
    assert not np.shares_memory(held, buffers["train"])


@pytest.mark.parametrize("serial", [False, True])
def test_serial_and_parallel_gathers_agree(serial):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(50, 4))
    kernel = RBF(gamma=0.3)
    G = DistanceGram(squared_distances(X), kernel, kernel.sq_euclidean_profile(), None,
                     serial=serial)
    rows, cols = rng.permutation(50)[:20], rng.permutation(50)[:35]
    np.testing.assert_allclose(G[np.ix_(rows, cols)], rbf_kernel(X[rows], X[cols], gamma=0.3),
                               rtol=1e-13, atol=1e-15)


def test_a_fold_scored_on_its_own_training_rows_equals_gridsearchcv():
    X, y = make_classification(100, 5, n_informative=3, flip_y=0.1, random_state=0)
    idx = np.arange(100)
    folds = [(idx, idx), (idx[:70], idx[70:])]
    Cs, gammas = [0.1, 1.0, 10.0], [0.05, 0.5]
    ours = KernelSVCCV("rbf", Cs=Cs, param_grid={"gamma": gammas}, cv=folds, tol=1e-7).fit(X, y)
    peer = GridSearchCV(SVC(tol=1e-7), {"C": Cs, "gamma": gammas}, cv=folds).fit(X, y)
    np.testing.assert_allclose(ours.cv_results_["split0_test_score"],
                               peer.cv_results_["split0_test_score"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(ours.cv_results_["mean_test_score"],
                               peer.cv_results_["mean_test_score"], rtol=0, atol=1e-12)
    assert ours.best_params_ == peer.best_params_


def test_fold_threads_survive_numbas_workqueue_threading_layer():
    # numba's workqueue layer (no OpenMP, no TBB) aborts the whole process when two
    # threads enter parallel regions at once: the fold threads must not.
    script = textwrap.dedent("""
        import numpy as np
        from sklearn.datasets import make_classification
        import kernelkit.models._cv_path as cv_path
        from kernelkit.models import KernelSVCCV
        from kernelkit._compiled import exp_scaled
        cv_path.fold_workers = lambda n, n_tasks: 2   # two fold threads on any machine
        exp_scaled(np.zeros((64, 64)), -1.0, np.empty((64, 64)))  # start the layer
        X, y = make_classification(300, 5, random_state=0)
        est = KernelSVCCV("rbf", Cs=[0.1, 1.0, 10.0], param_grid={"gamma": [0.05, 0.2, 1.0]},
                          cv=5).fit(X, y)
        import numba
        print("layer", numba.threading_layer(), "score", est.best_score_)
    """)
    env = dict(os.environ, NUMBA_THREADING_LAYER="workqueue")
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "layer workqueue" in done.stdout
