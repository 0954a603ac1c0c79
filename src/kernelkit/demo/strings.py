"""Demo part "strings": kernels on DNA sequences, no feature vectors at all.

The bundled DNA splice-junction data (3,186 sequences of 60 bases, three
classes; :func:`kernelkit.datasets.load_dna_splice`) go into the estimators as
strings. The lecture's worked example of the gap-weighted subsequence kernel,
k("cat", "cart") = 3 g^2 + g^4 + g^5 + 2 g^7, is checked first; then a kernel
SVM with the weighted-degree kernel (k-mers matched at the same position)
against the spectrum kernel (the same k-mers anywhere), kernel k-NN, kernel
k-means on the sequences (agreement with the labels) and the feature-space
outlier detector; the SVM is saved with its string support vectors and reloaded.
"""

from __future__ import annotations

import numpy as np

from ._common import fmt_bytes, fmt_time, table, timed

__all__ = ["part_strings", "format_strings"]

#: Test sequences (stratified); the rest trains. Quick runs train on 800.
_TEST = 1000
_QUICK_TRAIN = 800
_SEED = 0
_G = 0.5


def _row(key, model, kernel, n, fit_time, predict_time, accuracy):
    return {"key": key, "model": model, "kernel": kernel, "n": int(n),
            "fit_time": float(fit_time), "predict_time": float(predict_time),
            "accuracy": float(accuracy)}


def part_strings(settings):
    """String-kernel SVM, k-NN, k-means and outlier scores on DNA splice junctions."""
    from sklearn.metrics import adjusted_rand_score
    from sklearn.model_selection import train_test_split

    from ..datasets import load_dna_splice
    from ..kernels import Spectrum, Subsequence, WeightedDegree
    from ..models import (KernelKMeans, KernelKNeighborsClassifier, KernelOutlierDetector,
                          KernelSVC)
    from ..persistence import load, save

    lecture = float(Subsequence(p=3, decay=_G, all_lengths=True, normalize=False)(
        ["cat"], ["cart"])[0, 0])
    closed_form = 3 * _G**2 + _G**4 + _G**5 + 2 * _G**7

    X, y = load_dna_splice(return_X_y=True)
    X = np.array([str(s) for s in X])
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=_TEST, random_state=_SEED, stratify=y)
    if settings.quick:
        X_train, y_train = X_train[:_QUICK_TRAIN], y_train[:_QUICK_TRAIN]
    n = len(X_train)
    wd, spectrum = WeightedDegree(degree=3), Spectrum(k=5)
    rows = []

    def run(key, label, model, kernel):
        fitted, t_fit = timed(model.fit, X_train, y_train)
        pred, t_pred = timed(fitted.predict, X_test)
        rows.append(_row(key, label, repr(kernel), n, t_fit, t_pred, np.mean(pred == y_test)))
        return fitted, pred

    settings.say(f"strings: kernel SVMs on {n} DNA sequences")
    svm, pred = run("svm_wd", "kernel SVM, weighted degree", KernelSVC(wd, C=1.0), wd)
    run("svm_spectrum", "kernel SVM, spectrum", KernelSVC(spectrum, C=1.0), spectrum)
    run("knn_wd", "kernel 5-NN, weighted degree",
        KernelKNeighborsClassifier(n_neighbors=5, kernel=wd), wd)

    settings.say("strings: kernel k-means and outlier scores on the sequences")
    km, t_km = timed(KernelKMeans(n_clusters=3, kernel=wd, n_init=3, random_state=_SEED).fit,
                     X_train)
    ari = adjusted_rand_score(y_train, km.labels_)
    detector = KernelOutlierDetector(kernel=wd, method="knn", contamination=0.01).fit(X_train)
    scores = detector.score_samples(X_train)
    worst = int(np.argmin(scores))

    path = settings.out_dir / "dna_svm.kk"
    save(svm, path)
    identical = bool(np.array_equal(load(path).predict(X_test), pred))
    return {
        "name": "strings",
        "title": "String kernels on DNA splice junctions",
        "dataset": {"name": "dna_splice", "credit": "StatLog / UCI splice junctions (CC BY 4.0)",
                    "n_samples": int(len(y)), "length": int(len(X[0])),
                    "n_train": int(n), "n_test": int(len(y_test)), "split_seed": _SEED},
        "lecture_example": {"g": _G, "kernel": lecture, "closed_form": closed_form},
        "models": rows,
        "kmeans": {"fit_time": float(t_km), "ari": float(ari), "inertia": float(km.inertia_)},
        "outliers": {"n_flagged": int(np.sum(detector.predict(X_train) == -1)),
                     "most_unusual": str(X_train[worst]), "label": str(y_train[worst])},
        "persistence": {"file_size": int(path.stat().st_size), "identical": identical,
                        "n_support": int(len(svm.support_))},
    }


def format_strings(part, temporary):
    ds, lec, km, out, per = (part["dataset"], part["lecture_example"], part["kmeans"],
                             part["outliers"], part["persistence"])
    lines = [
        f"Data: {ds['name']}, {ds['n_samples']} sequences of {ds['length']} bases, "
        f"{ds['credit']}; given to the models as strings.",
        f"Split: {ds['n_train']} train / {ds['n_test']} test (stratified, seed "
        f"{ds['split_seed']}).",
        f"Lecture example, gap-weighted subsequences: k('cat', 'cart') at g = {lec['g']:g} is "
        f"{lec['kernel']:.10f}; 3g^2 + g^4 + g^5 + 2g^7 = {lec['closed_form']:.10f}.",
        "",
    ]
    lines += table(part["models"], [
        ("model", "model", str), ("kernel", "kernel", str), ("n", "n", lambda v: f"{v}"),
        ("fit time", "fit_time", fmt_time), ("predict", "predict_time", fmt_time),
        ("accuracy", "accuracy", lambda v: f"{v:.4f}")])
    lines += [
        "",
        "Position matters: the weighted-degree kernel matches k-mers at the same place, the "
        "spectrum kernel anywhere.",
        f"Kernel k-means (3 clusters, weighted degree, {fmt_time(km['fit_time'])}): adjusted "
        f"Rand index against the labels {km['ari']:.3f}.",
        f"Outlier detector (distance to the 5th neighbour in feature space): "
        f"{out['n_flagged']} sequences flagged at contamination 0.01;",
        f"  the most unusual ({out['label']}): {out['most_unusual']}",
        f"Saved the SVM with its {per['n_support']} string support vectors: "
        f"{fmt_bytes(per['file_size'])}; "
        + ("reloaded: predictions identical" if per["identical"]
           else "reloaded: PREDICTIONS DIFFER"),
    ]
    return lines
