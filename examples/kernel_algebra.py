"""
Kernels are objects with an algebra
===================================

Lecture: Kernels and feature maps -- constructing kernels: the closure rules
(sums, products, positive multiples, powers, exp, warping, x'Ay), the sigmoid
kernel that is not positive semi-definite, and the Gram matrix.

A kernel is an inner product of features, k(x, y) = phi(x)'phi(y); on a sample
x_1..x_n this says exactly that its Gram matrix K_ij = k(x_i, x_j) is positive
semi-definite (PSD): then K = Z Z' with the feature rows Z = U sqrt(Lambda) of
its eigendecomposition, and conversely Z Z' is always PSD. So the test of a
kernel on data is the smallest eigenvalue of K (``psd_check``).

In kernelkit a kernel is an object (a ``Kernel``), and the lectures' table of
rules that make new kernels from old ones is its algebra: ``k1 + k2``,
``k1 * k2``, ``c * k``, ``k ** p``, ``Exp(k)``, ``Warped(k, f)``
(f(x) k(x, y) f(y)), ``Composed(k, phi)`` (k(phi(x), phi(y))) and
``Bilinear(A)`` (x'Ay). The script builds one kernel by each rule, together
with the kernels of the notes (Matern, Chi2 on histograms, the spline kernel
with infinitely many knots, the Kronecker delta on categories, a plain Python
function as a ``CallableKernel``), and prints for each its Gram matrix's
smallest eigenvalue (relative to the largest) and whether it passes the
contract every kernel satisfies (``check_kernel``: symmetry, the diagonal,
blocks, PSD when it claims to be). Every rule keeps the smallest eigenvalue at
round-off level; the sigmoid kernel tanh(gamma x'y + c), a kernel of the early
neural-network days, has clearly negative eigenvalues: it is no inner product
of any features (it says so: ``is_psd`` is False).

The same objects can be written as text (``parse_kernel``: the expression
"rbf(gamma=0.5) + 0.1 * poly(degree=3)" *is* the object built with ``+`` and
``*``), and a width left to the data (gamma="scale") is fixed on the training
inputs (1 / (n_features Var X), scikit-learn's rule). Finally the Gram matrix:
``gram`` computes it in row blocks within a memory budget, and ``GramOperator``
applies K without ever storing it. A Gaussian written as a plain function that
records each call shows the blocks they ask for (only the lower triangle for a
symmetric K); the results equal the dense formula, the operator's products
equal K @ v, and a conjugate-gradient ridge solve on it equals the dense one.

The figure shows the smallest relative eigenvalue of every kernel (left) and
the whole spectrum of the sigmoid kernel next to two PSD kernels (right).

Run: ``python examples/kernel_algebra.py`` (about 5 seconds)
"""

import argparse

import numpy as np

from kernelkit import config_context
from kernelkit.diagnostics import psd_check
from kernelkit.gram import GramOperator, gram
from kernelkit.kernels import (RBF, Bilinear, CallableKernel, Chi2, Composed, Exp, Kernel,
                               KroneckerDelta, Laplacian, Linear, Matern, Polynomial, Power,
                               Product, Scaled, Sigmoid, Spline, Sum, Warped, parse_kernel,
                               resolve_kernel)
from kernelkit.testing import check_kernel

TEXT = "rbf(gamma=0.5) + 0.1 * poly(degree=3)"
SIGMOID = Sigmoid(gamma=1.0, coef0=0.0)
GAMMA = 0.5  # width of the RBF built by warping exp(2 gamma x'y)


def gaussian_weight(Z):
    """f(x) = exp(-gamma ||x||^2): f(x) exp(2 gamma x'y) f(y) = exp(-gamma ||x - y||^2)."""
    return np.exp(-GAMMA * (np.asarray(Z) ** 2).sum(axis=1))


def on_circle(Z):
    """phi(x) = (cos 2 pi x_1, sin 2 pi x_1, x_2, x_3): k(phi(x), phi(y)) is periodic in x_1."""
    Z = np.asarray(Z, dtype=np.float64)
    return np.column_stack([np.cos(2 * np.pi * Z[:, 0]), np.sin(2 * np.pi * Z[:, 0]), Z[:, 1:]])


def brownian(X, Y):
    """prod_k (1 + min(x_k, y_k)): a plain function k(X, Y) -> Gram matrix."""
    return np.prod(1.0 + np.minimum(X[:, None, :], Y[None, :, :]), axis=2)


def sample(n, seed=0):
    """n points of [0, 1]^3, the same rows as histograms (summing to 1), and 4 categories."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(0.0, 1.0, size=(n, 3))
    H = X / X.sum(axis=1, keepdims=True)
    C = rng.integers(0, 4, size=(n, 1)).astype(np.float64)
    return X, H, C


def kernels(A):
    """(name, rule, kernel, which input) for the table: the notes' kernels, then one per rule."""
    rbf, lin = RBF(gamma=2.0), Linear()
    return [
        ("RBF exp(-2 ||x - y||^2)", "kernel", rbf, "X"),
        ("Matern nu = 3/2", "kernel", Matern(nu=1.5, length_scale=0.5), "X"),
        ("Chi2 on histograms", "kernel", Chi2(gamma=1.0), "H"),
        ("linear spline, infinitely many knots", "kernel", Spline(order=1), "X"),
        ("Kronecker delta on categories", "kernel", KroneckerDelta(), "C"),
        ("sigmoid tanh(x'y)", "kernel", SIGMOID, "X"),
        ("RBF + linear", "Sum", Sum(rbf, lin), "X"),
        ("RBF * (x'y + 1)^2", "Product", Product(rbf, Polynomial(degree=2, gamma=1.0)), "X"),
        ("3 * Laplacian", "Scaled", Scaled(Laplacian(gamma=1.0), 3.0), "X"),
        ("(x'y)^3", "Power", Power(lin, 3), "X"),
        ("exp(x'y)", "Exp", Exp(lin), "X"),
        ("f(x) exp(2g x'y) f(y) = RBF", "Warped", Warped(Exp(Scaled(lin, 2 * GAMMA)),
                                                         gaussian_weight), "X"),
        ("RBF(phi(x), phi(y)), periodic", "Composed", Composed(rbf, on_circle), "X"),
        ("x'Ay, A = BB'", "Bilinear", Bilinear(A), "X"),
        ("prod (1 + min(x, y)), a function", "Callable", resolve_kernel(brownian), "X"),
        (TEXT, "parsed", parse_kernel(TEXT), "X"),
    ]


def features_from_gram(K):
    """Z = U sqrt(max(Lambda, 0)): the feature rows with Z Z' = K when K is PSD."""
    w, U = np.linalg.eigh((K + K.T) / 2)
    return U * np.sqrt(np.clip(w, 0.0, None))


class RecordedGaussian:
    """exp(-||x - y||^2 / 2) written by hand, recording the (rows, columns) of every call.

    Wrapped in a ``CallableKernel``, it shows how ``gram`` and ``GramOperator``
    ask for the kernel: block by block, never the whole matrix at once.
    """

    def __init__(self):
        self.calls = []

    def __call__(self, A, B):
        self.calls.append((len(A), len(B)))
        sq = (A ** 2).sum(axis=1)[:, None] + (B ** 2).sum(axis=1)[None, :] - 2 * A @ B.T
        return np.exp(-0.5 * np.clip(sq, 0.0, None))


def _ridge_by_operator(X, y, n_alpha):
    """Solve (K + n alpha I) a = y by conjugate gradients on a GramOperator (K never stored)."""
    from scipy.sparse.linalg import cg

    recorder = RecordedGaussian()
    op = GramOperator(CallableKernel(recorder), X, shift=n_alpha)
    op.block_rows = 64  # several blocks even for a small sample
    a, info = cg(op.aslinearoperator(), y, rtol=1e-10, maxiter=500)
    return a, info, op, recorder


def run(quick=False):
    """Check every kernel and every rule on one sample; return the numbers of the table."""
    n = 80 if quick else 300
    X, H, C = sample(n)
    inputs = {"X": X, "H": H, "C": C}
    B = np.random.default_rng(1).normal(size=(3, 3))
    A = B @ B.T
    rows = []
    for i, (name, rule, k, which) in enumerate(kernels(A)):
        Z = inputs[which]
        K = k(Z)
        report = psd_check(k, Z)
        F = features_from_gram(K)
        contract = None
        if not quick or i in (5, 15):  # the contract tiles the sample: slow-ish
            try:
                check_kernel(k, Z[:30])
                contract = True
            except AssertionError:
                contract = False
        rows.append({"name": name, "rule": rule, "is_kernel_object": isinstance(k, Kernel),
                     "claims_psd": bool(k.is_psd), "is_psd": report.is_psd,
                     "min_eig": report.min_eigenvalue, "max_eig": report.max_eigenvalue,
                     "n_negative": report.n_negative, "contract": contract,
                     "features_error": float(np.max(np.abs(F @ F.T - K)) / np.max(np.abs(K))),
                     "spectrum": np.linalg.eigvalsh(K)[::-1]})

    # the closed forms the rules should reproduce
    rbf_half = np.exp(-GAMMA * ((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=2))
    parsed = parse_kernel(TEXT)
    built = RBF(gamma=0.5) + 0.1 * Polynomial(degree=3)
    scale_kernel = resolve_kernel("rbf")  # gamma="scale": a rule, fixed on the data
    resolved = scale_kernel.resolve(X)
    identities = {
        "warped_vs_rbf": float(np.max(np.abs(kernels(A)[11][2](X) - rbf_half))),
        "bilinear_vs_XAX": float(np.max(np.abs(Bilinear(A)(X) - X @ A @ X.T))),
        "callable_vs_spline0": float(np.max(np.abs(CallableKernel(brownian)(X)
                                                   - Spline(order=0)(X)))),
        "parsed_equals_built": bool(parsed == built),
        "parsed_repr_roundtrip": bool(parse_kernel(repr(built)) == built),
        "parsed_gram_vs_built": float(np.max(np.abs(parsed(X) - built(X)))),
        "scale_gamma": float(resolved.gamma),
        "scale_rule": float(1.0 / (X.shape[1] * X.var())),
        "scale_gram_vs_resolved": float(np.max(np.abs(gram("rbf", X) - resolved(X)))),
    }

    # the Gram matrix in row blocks within a 16 MB budget, against the dense formula
    n_big = 1500 if quick else 4000
    Xb = np.random.default_rng(2).normal(size=(n_big, 3))
    recorder = RecordedGaussian()
    with config_context(memory="16MB"):
        K_blocks = gram(CallableKernel(recorder), Xb)
    sq = (Xb ** 2).sum(axis=1)
    K_dense = np.exp(-0.5 * np.clip(sq[:, None] + sq[None, :] - 2 * Xb @ Xb.T, 0.0, None))
    n_op = 200 if quick else 600
    Xo = Xb[:n_op]
    y = np.sin(3 * Xo[:, 0]) + 0.1 * np.random.default_rng(3).normal(size=n_op)
    v = np.random.default_rng(4).normal(size=n_op)
    n_alpha = n_op * 1e-3
    a_cg, info, op, op_recorder = _ridge_by_operator(Xo, y, n_alpha)
    K_o = RBF(gamma=0.5)(Xo)
    a_dense = np.linalg.solve(K_o + n_alpha * np.eye(n_op), y)
    op_product = op @ v
    engine = {
        "n_big": n_big, "block_calls": list(recorder.calls),
        "n_blocks": len(recorder.calls),
        "block_rows": max(r for r, _ in recorder.calls),
        "entries_share": sum(r * c for r, c in recorder.calls) / n_big ** 2,
        "gram_vs_dense": float(np.max(np.abs(K_blocks - K_dense))),
        "gram_rbf_vs_dense": float(np.max(np.abs(gram(RBF(gamma=0.5), Xb) - K_dense))),
        "n_op": n_op, "op_block_rows": int(op.block_rows),
        "op_largest_call": max(r for r, _ in op_recorder.calls),
        "op_vs_dense": float(np.max(np.abs(op_product - (K_o @ v + n_alpha * v)))),
        "cg_info": int(info),
        "cg_vs_solve": float(np.max(np.abs(a_cg - a_dense)) / np.max(np.abs(a_dense))),
    }

    print(f"{n} points of [0, 1]^3 (the same rows as histograms for Chi2; 4 categories for "
          f"the delta kernel)\n")
    print(f"{'kernel':38s} {'rule':9s} {'claims':>6s} {'min eig / max':>14s} {'#neg':>5s} "
          f"{'|ZZ^T-K|':>9s} {'contract':>8s}")
    for r in rows:
        contract = {True: "ok", False: "FAIL", None: "-"}[r["contract"]]
        print(f"{r['name'][:38]:38s} {r['rule']:9s} {'PSD' if r['claims_psd'] else 'no':>6s} "
              f"{r['min_eig'] / r['max_eig']:14.1e} {r['n_negative']:5d} "
              f"{r['features_error']:9.1e} {contract:>8s}")
    print(f"\nwarping exp(2g x'y) by exp(-g||x||^2) is the RBF: max difference "
          f"{identities['warped_vs_rbf']:.1e}")
    print(f"Bilinear(A) is X A X': {identities['bilinear_vs_XAX']:.1e};  the function "
          f"prod(1 + min) is Spline(order=0): {identities['callable_vs_spline0']:.1e}")
    print(f"parse_kernel({TEXT!r}) == RBF(gamma=0.5) + 0.1 * Polynomial(degree=3): "
          f"{identities['parsed_equals_built']} (Gram matrices differ by "
          f"{identities['parsed_gram_vs_built']:.1e}; repr round-trips: "
          f"{identities['parsed_repr_roundtrip']})")
    print(f"'rbf' has gamma='scale': on this sample gamma = {identities['scale_gamma']:.4f} "
          f"= 1 / (n_features Var X) = {identities['scale_rule']:.4f}")
    print(f"\ngram of a recorded Gaussian on {n_big} points in a 16 MB budget: "
          f"{engine['n_blocks']} blocks of up to {engine['block_rows']} rows, "
          f"{engine['entries_share']:.0%} of the entries computed (the lower triangle, "
          f"mirrored);\n  max |K - dense formula| = {engine['gram_vs_dense']:.1e} "
          f"(RBF object: {engine['gram_rbf_vs_dense']:.1e})")
    print(f"GramOperator on {n_op} points: the kernel is asked for at most "
          f"{engine['op_largest_call']} rows at a time (K never stored); max |(K + n alpha I) v"
          f" - op @ v| = {engine['op_vs_dense']:.1e}; CG ridge vs dense solve: "
          f"{engine['cg_vs_solve']:.1e} (relative)")
    return {"n": n, "rows": rows, "identities": identities, "engine": engine}


def plot(results):
    """Left: each kernel's smallest relative eigenvalue; right: spectra, sigmoid vs PSD kernels."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(12, 5.5), layout="constrained")
    ax = fig.add_subplot(1, 2, 1)
    rows = results["rows"]
    rel = np.array([r["min_eig"] / r["max_eig"] for r in rows])
    colors = ["tab:red" if not r["is_psd"] else "tab:blue" for r in rows]
    pos = np.arange(len(rows))[::-1]
    ax.axvspan(-1e-8, 1e-8, color="0.9", label="round-off: |eig| < 1e-8 x largest")
    ax.scatter(rel, pos, c=colors, s=30, zorder=3)
    for x, y in zip(rel, pos):
        ax.plot([0.0, x], [y, y], color="0.6", lw=0.8, zorder=2)
    ax.set_xscale("symlog", linthresh=1e-12)
    ticks = [-1e-1, -1e-4, -1e-8, 0.0, 1e-8, 1e-4, 1e-1]
    ax.set_xticks(ticks, ["-1e-1", "-1e-4", "-1e-8", "0", "1e-8", "1e-4", "1e-1"])
    ax.set_xlim(-1.0, 1.0)
    ax.axvline(0.0, color="k", lw=0.8)
    ax.set_yticks(pos, [f"{r['name'][:32]} [{r['rule']}]" for r in rows], fontsize=7)
    ax.set_xlabel("smallest / largest eigenvalue of K (symlog)")
    ax.set_title("psd_check: every rule stays PSD, sigmoid fails", fontsize=10)
    ax.legend(loc="lower left", fontsize=7)

    ax2 = fig.add_subplot(1, 2, 2)
    for r, color in ((rows[0], "tab:blue"), (rows[6], "tab:green"), (rows[5], "tab:red")):
        s = r["spectrum"]
        ax2.plot(np.arange(1, len(s) + 1), s / s[0], ".-", color=color, ms=3, label=r["name"])
    ax2.set_yscale("symlog", linthresh=1e-6)
    ax2.axhline(0.0, color="k", lw=0.8)
    ax2.set_xlabel("eigenvalue index")
    ax2.set_ylabel("eigenvalue / largest (symlog)")
    ax2.set_title("spectra: sigmoid has negative eigenvalues", fontsize=10)
    ax2.legend(fontsize=8)
    return fig


def main(argv=None):
    parser = argparse.ArgumentParser(description="The algebra of kernels, checked on data.")
    parser.add_argument("--quick", action="store_true", help="a smaller sample (a test run)")
    parser.add_argument("--out", default="kernel_algebra.png", help="PNG file to write")
    args = parser.parse_args(argv)
    results = run(quick=args.quick)
    try:
        fig = plot(results)
    except ImportError:
        print("no picture (matplotlib is not installed)")
        return
    fig.savefig(args.out, dpi=100)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
