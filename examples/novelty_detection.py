"""
Novelty detection on the breast cancer data: one-class SVM against distance scores
==================================================================================

Lecture: Distance methods in feature space -- outliers: the distance to the
kernel mean and to the k-th nearest neighbour in feature space, next to the
one-class SVM.

Fit on benign tumours only, then ask which of the held-out tumours (benign and
malignant) look unlike the training data. Three detectors with the same RBF
kernel and scikit-learn's outlier API:

1. ``KernelOneClassSVM`` (Schoelkopf et al.'s nu formulation, solved by SMO as
   libsvm): its decision function is checked against scikit-learn's OneClassSVM;
2. ``KernelOutlierDetector(method="knn")``: the feature-space distance to the 5th
   nearest training tumour;
3. ``KernelOutlierDetector(method="mean")``: the distance to the kernel mean.

For each: the area under the ROC curve of "malignant" against the score, and
the share of malignant and benign test tumours flagged (-1) by ``predict``;
the picture draws the three ROC curves.

Run: ``python examples/novelty_detection.py`` (a few seconds; scikit-learn's
bundled data, no download)
"""

import argparse

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import OneClassSVM

from kernelkit.kernels import RBF
from kernelkit.models import KernelOneClassSVM, KernelOutlierDetector

GAMMA = 0.02  # about 1 / n_features on standardised data (scikit-learn's "scale")


def run(quick=False):
    """Fit the three detectors on benign tumours; prints the table, returns them and their AUC.

    (The data are small: ``quick`` changes nothing.)
    """
    X, y = load_breast_cancer(return_X_y=True)  # y: 0 malignant, 1 benign
    benign, malignant = X[y == 1], X[y == 0]
    train, test_benign = train_test_split(benign, test_size=100, random_state=0)
    scaler = StandardScaler().fit(train)
    train = scaler.transform(train)
    test = scaler.transform(np.vstack([test_benign, malignant]))
    is_malignant = np.r_[np.zeros(len(test_benign)), np.ones(len(malignant))]

    auc_of = {}
    detectors = {
        "one-class SVM (nu=0.05)": KernelOneClassSVM(RBF(gamma=GAMMA), nu=0.05),
        "5th neighbour distance": KernelOutlierDetector(RBF(gamma=GAMMA), method="knn",
                                                        contamination=0.05),
        "distance to kernel mean": KernelOutlierDetector(RBF(gamma=GAMMA), method="mean",
                                                         contamination=0.05),
    }
    print(f"trained on {len(train)} benign tumours; tested on {len(test_benign)} benign "
          f"and {len(malignant)} malignant")
    print(f"{'detector':26s} {'ROC AUC':>8s} {'malignant flagged':>18s} {'benign flagged':>15s}")
    for name, det in detectors.items():
        det.fit(train)
        auc = auc_of[name] = float(roc_auc_score(is_malignant, -det.score_samples(test)))
        flagged = det.predict(test) == -1
        print(f"{name:26s} {auc:8.3f} {flagged[is_malignant == 1].mean():18.1%} "
              f"{flagged[is_malignant == 0].mean():15.1%}")

    ocsvm = detectors["one-class SVM (nu=0.05)"]
    ref = OneClassSVM(gamma=GAMMA, nu=0.05).fit(train)
    diff = np.abs(ocsvm.decision_function(test) - ref.decision_function(test)).max()
    print(f"\none-class SVM: {len(ocsvm.support_)} support vectors "
          f"(scikit-learn: {len(ref.support_)}), offset {ocsvm.offset_:.4f} "
          f"(scikit-learn: {float(ref.offset_[0]):.4f}), largest difference of the "
          f"decision values {diff:.1e}")
    return {"detectors": detectors, "test": test, "train": train, "is_malignant": is_malignant,
            "auc": auc_of, "sklearn_difference": float(diff)}


def plot(results):
    """The ROC curves of the three detectors (malignant = positive, low score = unusual)."""
    from matplotlib.figure import Figure
    from sklearn.metrics import roc_curve

    fig = Figure(figsize=(5.5, 5), layout="constrained")
    ax = fig.subplots()
    for name, det in results["detectors"].items():
        fpr, tpr, _ = roc_curve(results["is_malignant"], -det.score_samples(results["test"]))
        ax.plot(fpr, tpr, label=f"{name} (AUC {results['auc'][name]:.3f})")
    ax.plot([0, 1], [0, 1], "k:", lw=0.8)
    ax.set_xlabel("benign flagged (false positive rate)")
    ax.set_ylabel("malignant flagged (true positive rate)")
    ax.legend(fontsize=8, loc="lower right")
    ax.set_title("novelty detection, trained on benign tumours")
    return fig


def main(argv=None):
    parser = argparse.ArgumentParser(description="Novelty detection on breast cancer data.")
    parser.add_argument("--quick", action="store_true", help="the same run (the data are small)")
    parser.add_argument("--out", default="novelty_detection.png", help="PNG file to write")
    args = parser.parse_args(argv)
    results = run(quick=args.quick)
    try:
        fig = plot(results)
    except ImportError:
        print("no picture (matplotlib is not installed)")
        return results
    fig.savefig(args.out, dpi=100)
    print(f"wrote {args.out}")
    return results


if __name__ == "__main__":
    main()
