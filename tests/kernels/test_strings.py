"""String kernels against the lecture's example, brute-force enumeration and naive counts."""

from collections import Counter

import numpy as np
import pytest

from kernelkit import gram, parse_kernel
from kernelkit._compiled import (encode, subsequence_block, subsequence_pair,
                                 subsequence_self)
from kernelkit._compiled._reference import (subsequence_block_ref, subsequence_brute,
                                            subsequence_pair_ref, subsequence_polynomial)
from kernelkit.features import ExplicitFeatures, RandomFourierFeatures
from kernelkit.kernels import (RBF, Constant, Exp, Linear, Spectrum, Subsequence, Sum,
                               WeightedDegree, kernel_from_dict)
from kernelkit.testing import check_kernel


def random_strings(n, alphabet="acgt", max_len=9, seed=0):
    rng = np.random.default_rng(seed)
    return ["".join(rng.choice(list(alphabet), size=rng.integers(0, max_len + 1)))
            for _ in range(n)]


# ---- the lecture's example --------------------------------------------------------------
def test_cat_cart_is_the_all_lengths_kernel_up_to_three():
    # Symbolically: coefficients of the polynomial in g, by enumerating index tuples.
    # c, a, t (span 1 in both): 3 g^2; ca: g^(2+2); at: g^(2+3); ct: g^(3+4); cat: g^(3+4).
    assert subsequence_polynomial("cat", "cart", 3, all_lengths=True) == {2: 3, 4: 1, 5: 1, 7: 2}
    # every p >= 3 gives the same ("cat" has no longer subsequence)
    assert subsequence_polynomial("cat", "cart", 6, all_lengths=True) == {2: 3, 4: 1, 5: 1, 7: 2}
    # fixed length p = 2 is only the middle part
    assert subsequence_polynomial("cat", "cart", 2) == {4: 1, 5: 1, 7: 1}


@pytest.mark.parametrize("g", [0.1, 0.3, 0.5, 0.77, 1.0])
def test_cat_cart_dynamic_program_at_several_decays(g):
    expected = 3 * g**2 + g**4 + g**5 + 2 * g**7
    k = Subsequence(p=3, decay=g, all_lengths=True, normalize=False)
    assert k(["cat"], ["cart"])[0, 0] == pytest.approx(expected, rel=1e-14)
    assert subsequence_pair_ref("cat", "cart", 3, g, True) == pytest.approx(expected, rel=1e-14)
    fixed = Subsequence(p=2, decay=g, normalize=False)(["cat"], ["cart"])[0, 0]
    assert fixed == pytest.approx(g**4 + g**5 + g**7, rel=1e-14)


# ---- compiled dynamic program == plain twin == brute force ---------------------------------
@pytest.mark.parametrize("p", [1, 2, 3, 4])
@pytest.mark.parametrize("all_lengths", [False, True])
def test_subsequence_dp_matches_brute_force(p, all_lengths):
    X = random_strings(14, "ab c", max_len=8, seed=p)
    Y = random_strings(9, "abc", max_len=7, seed=10 + p)
    brute = np.array([[subsequence_brute(s, t, p, 0.7, all_lengths) for t in Y] for s in X])
    xc, xo = encode(X)
    yc, yo = encode(Y)
    out = np.full((len(X), len(Y)), np.nan)
    subsequence_block(xc, xo, yc, yo, p, 0.7, all_lengths, -1, out)
    np.testing.assert_allclose(out, brute, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(subsequence_block_ref(X, Y, p, 0.7, all_lengths), brute,
                               rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(subsequence_self(xc, xo, p, 0.7, all_lengths),
                               [subsequence_brute(s, s, p, 0.7, all_lengths) for s in X],
                               rtol=1e-12, atol=1e-14)
    assert subsequence_pair(xc[xo[0]:xo[1]], yc[yo[0]:yo[1]], p, 0.7, all_lengths) == \
        pytest.approx(brute[0, 0], rel=1e-12, abs=1e-14)


@pytest.mark.parametrize("p", [1, 2, 4, 70])
@pytest.mark.parametrize("all_lengths", [False, True])
def test_row_by_row_dp_is_bit_identical_to_the_full_layer_twin(p, all_lengths):
    # The compiled program keeps one row per length (O(p |t|) memory); the twin keeps
    # two full (|s|+1) x (|t|+1) layers. Same sums in the same order: equal bits.
    X = random_strings(12, "abc", max_len=60, seed=20 + p)
    Y = random_strings(9, "abcd", max_len=45, seed=30 + p)
    xc, xo = encode(X)
    yc, yo = encode(Y)
    out = np.empty((len(X), len(Y)))
    subsequence_block(xc, xo, yc, yo, p, 0.7, all_lengths, -1, out)
    np.testing.assert_array_equal(out, subsequence_block_ref(X, Y, p, 0.7, all_lengths))
    np.testing.assert_array_equal(subsequence_self(xc, xo, p, 0.7, all_lengths),
                                  [subsequence_pair_ref(s, s, p, 0.7, all_lengths) for s in X])


def test_subsequence_scratch_grows_with_p_times_length_not_length_squared():
    from kernelkit._compiled.strings import subsequence_scratch_size

    assert subsequence_scratch_size(2, 5000, 5000) == 2 * 5001 + 3
    assert subsequence_scratch_size(50, 3, 5000) == 3 * 5001 + 4  # depth min(p, |s|, |t|)


def test_long_strings_stay_within_a_small_budget():
    # Two 5,000-character strings under a 16 MB budget: the full-layer program took
    # +382 MB (issue 13); rows per length take 120 KB. Peak memory of a fresh process.
    import subprocess
    import sys

    code = """
import resource, numpy as np, kernelkit
from kernelkit.kernels import Subsequence
k = Subsequence(p=2, decay=0.5)
k(["ab"], ["abc"])  # compile (or load) first
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
rng = np.random.default_rng(0)
X = ["".join(rng.choice(list("abcdefgh"), size=5000)) for _ in range(2)]
with kernelkit.config_context(memory="16MB"):
    K = k(X)
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
assert K.shape == (2, 2) and K[0, 0] == 1.0 and 0 < K[0, 1] < 1, K
assert grown < 48 * 1024, f"peak memory grew by {grown / 1024:.0f} MB"
"""
    subprocess.run([sys.executable, "-c", code], check=True)


def test_dynamic_program_refused_before_allocating_when_p_times_length_does_not_fit():
    from kernelkit import config_context
    from kernelkit.exceptions import MemoryBudgetError

    X = ["ab" * 1500, "ba" * 1500]
    with config_context(memory="16MB"):
        with pytest.raises(MemoryBudgetError, match=r"p=3000.*3000 characters.*smaller p"):
            Subsequence(p=3000)(X)
        with pytest.raises(MemoryBudgetError, match="p=3000"):
            Subsequence(p=3000).diag(X)


def test_symmetric_block_with_offset_mirrors_the_same_values():
    Y = random_strings(20, seed=3)
    yc, yo = encode(Y)
    full = np.empty((20, 20))
    subsequence_block(yc, yo, yc, yo, 2, 0.6, False, -1, full)
    X = Y[5:12]
    xc, xo = encode(X)
    block = np.full((7, 20), np.nan)
    subsequence_block(xc, xo, yc, yo, 2, 0.6, False, 5, block)  # rows 5..11 of the Gram matrix
    np.testing.assert_allclose(block, full[5:12], rtol=1e-13)


def test_normalised_subsequence_and_short_strings():
    X = ["cat", "cart", "a", "", "tact"]
    raw = Subsequence(p=2, decay=0.5, normalize=False)(X)
    K = Subsequence(p=2, decay=0.5)(X)
    d = np.diag(raw)
    dd = np.outer(d, d)
    expected = np.where(dd > 0, raw / np.sqrt(np.where(dd > 0, dd, 1.0)), 0.0)
    np.testing.assert_allclose(K, expected, rtol=1e-14)
    # strings shorter than p have the zero feature vector: row, column and diagonal 0
    np.testing.assert_array_equal(np.diag(K), [1, 1, 0, 0, 1])
    np.testing.assert_array_equal(Subsequence(p=2).diag(X), [1, 1, 0, 0, 1])


def test_unicode_strings():
    X = ["héllo wörld", "hello world", "日本語のテキスト", "🙂🙃🙂"]
    K = Subsequence(p=2, decay=0.8, normalize=False)(X)
    brute = [[subsequence_brute(s, t, 2, 0.8) for t in X[2:]] for s in X[2:]]
    np.testing.assert_allclose(K[2:, 2:], brute, rtol=1e-12)
    np.testing.assert_array_equal(Spectrum(k=2, normalize=False)(X), naive_spectrum(X, X, 2))
    assert Spectrum(k=2, normalize=False)(X)[3, 3] == 2  # one each of the two bigrams


# ---- spectrum and weighted degree against naive counts ----------------------------------------
def _kmers(s, k):
    return [s[i:i + k] for i in range(len(s) - k + 1)]


def naive_spectrum(X, Y, k):
    cx, cy = [Counter(_kmers(s, k)) for s in X], [Counter(_kmers(t, k)) for t in Y]
    return np.array([[sum(c * b[u] for u, c in a.items()) for b in cy] for a in cx], dtype=float)


def naive_weighted_degree(X, Y, D):
    out = np.zeros((len(X), len(Y)))
    for i, s in enumerate(X):
        for j, t in enumerate(Y):
            for d in range(1, D + 1):
                beta = 2.0 * (D - d + 1) / (D * (D + 1))
                out[i, j] += beta * sum(s[q:q + d] == t[q:q + d]
                                        for q in range(min(len(s), len(t)) - d + 1))
    return out


@pytest.mark.parametrize("k", [1, 2, 3, 7, 20])  # k = 7, 20 compare k-mers as bytes (no packing)
def test_spectrum_matches_naive_counts(k):
    X = random_strings(25, "abcdé", max_len=25, seed=k)
    Y = random_strings(11, "abcdé", max_len=25, seed=k + 1)
    np.testing.assert_array_equal(Spectrum(k=k, normalize=False)(X, Y), naive_spectrum(X, Y, k))
    Kn = Spectrum(k=k)(X, Y)
    dx = np.diag(naive_spectrum(X, X, k))
    dy = np.diag(naive_spectrum(Y, Y, k))
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = np.nan_to_num(naive_spectrum(X, Y, k) / np.sqrt(np.outer(dx, dy)))
    np.testing.assert_allclose(Kn, expected, rtol=1e-13, atol=1e-15)


def test_spectrum_on_long_text_uses_sparse_products():
    rng = np.random.default_rng(1)
    words = ["".join(rng.choice(list("abcdefghij"), size=5)) for _ in range(400)]
    X = [" ".join(rng.choice(words, size=60)) for _ in range(40)]  # 40 texts of ~360 chars
    np.testing.assert_array_equal(Spectrum(k=4, normalize=False)(X[:15], X),
                                  naive_spectrum(X[:15], X, 4))


@pytest.mark.parametrize("D", [1, 3, 5, 9])  # 9: (position, 9-mer) keys compared as bytes
def test_weighted_degree_matches_naive_loop(D):
    X = random_strings(15, max_len=12, seed=D)
    Y = random_strings(8, max_len=12, seed=D + 7)
    np.testing.assert_allclose(WeightedDegree(degree=D, normalize=False)(X, Y),
                               naive_weighted_degree(X, Y, D), rtol=1e-13, atol=1e-15)


# ---- the kernel contract, registry, algebra ----------------------------------------------------
CONTRACT = [
    Subsequence(), Subsequence(p=3, decay=0.8, all_lengths=True, normalize=False),
    Spectrum(k=2), Spectrum(k=3, normalize=False), WeightedDegree(degree=4),
    Spectrum(k=1) + 0.5 * Subsequence(p=2), (Spectrum(k=2) * WeightedDegree()) ** 2,
    Spectrum(k=2) + 1.0, Exp(Spectrum(k=2)),
]


@pytest.mark.parametrize("kernel", CONTRACT, ids=repr)
def test_check_kernel_on_strings(kernel):
    check_kernel(kernel, random_strings(30, "abc ", max_len=10, seed=5))


@pytest.mark.parametrize("text, expected", [
    ("subsequence(p=3, decay=0.5)", Subsequence(p=3, decay=0.5)),
    ("ssk(2, 0.9, all_lengths=True, normalize=False)",
     Subsequence(p=2, decay=0.9, all_lengths=True, normalize=False)),
    ("spectrum(k=3)", Spectrum(k=3)), ("kmer(4, normalize=False)", Spectrum(4, normalize=False)),
    ("wd(degree=5)", WeightedDegree(degree=5)),
    ("spectrum(k=2) + 0.5 * subsequence(p=2)", Spectrum(k=2) + 0.5 * Subsequence(p=2)),
])
def test_parser_and_registry(text, expected):
    assert parse_kernel(text) == expected
    assert kernel_from_dict(expected.to_dict()) == expected


def test_algebra_propagates_input_kind_and_refuses_mixing():
    assert (Spectrum() + Subsequence()).input_kind == "string"
    assert (2.0 * Spectrum() * Spectrum(k=1) + 1.0).input_kind == "string"
    with pytest.raises(ValueError, match="cannot combine .*strings.*vectors"):
        Spectrum() + RBF()
    with pytest.raises(ValueError, match="cannot combine .*vectors.*strings"):
        Linear() * Subsequence()
    with pytest.raises(ValueError, match="cannot combine"):
        parse_kernel("spectrum(k=3) + rbf")
    # a sum of a string kernel and a constant works on strings: K + 1
    X = ["ab", "ba", "abc"]
    np.testing.assert_allclose((Spectrum(k=1) + 1.0)(X), Spectrum(k=1)(X) + 1.0)
    assert isinstance(Spectrum() + 1.0, Sum) and (Spectrum() + Constant()).input_kind == "string"


def test_bad_parameters_and_inputs():
    with pytest.raises(ValueError, match="decay"):
        Subsequence(decay=0)
    with pytest.raises(ValueError, match="decay"):
        Subsequence(decay=1.5)
    with pytest.raises(ValueError, match="p must be an integer >= 1"):
        Subsequence(p=0)
    with pytest.raises(TypeError, match="k must be an integer"):
        Spectrum(k=2.5)
    with pytest.raises(TypeError, match="normalize"):
        Spectrum(normalize="yes")
    with pytest.raises(TypeError, match="numbers, not strings"):
        Spectrum()([1.0, 2.0])
    with pytest.raises(ValueError, match="1-D collection of strings.*vector kernel"):
        Spectrum()(np.zeros((3, 2)))
    with pytest.raises(TypeError, match="mixes strings and numbers"):
        gram(Subsequence(), ["ab", 3])
    with pytest.raises(TypeError, match="contains strings; this kernel works on numeric"):
        gram(RBF(), ["ab", "cd"])


def test_no_random_or_explicit_features_for_string_kernels():
    X = ["abc", "bca"]
    with pytest.raises(ValueError, match="Nystroem"):
        Spectrum().spectral_density()
    with pytest.raises(ValueError, match="kernel on strings.*Nystroem"):
        RandomFourierFeatures(Spectrum(), n_components=10).fit(X)
    with pytest.raises(ValueError, match="kernel on strings.*Nystroem"):
        ExplicitFeatures(Subsequence()).fit(X)


@pytest.mark.parametrize("cost", [0.0, np.inf])  # force the sparse, then the dense product
def test_sparse_and_dense_products_agree(cost, monkeypatch):
    from kernelkit.kernels import strings

    monkeypatch.setattr(strings, "_SPARSE_FLOP_COST", cost)
    X = random_strings(40, "abcdefgh", max_len=30, seed=4)
    Y = random_strings(9, "abcdefgh", max_len=30, seed=5)
    np.testing.assert_array_equal(Spectrum(k=2, normalize=False)(X, Y), naive_spectrum(X, Y, 2))
    np.testing.assert_allclose(WeightedDegree(degree=2, normalize=False)(X, Y),
                               naive_weighted_degree(X, Y, 2), rtol=1e-13)
    # the thread pool's row chunks: more rows than one task takes
    monkeypatch.setattr(strings._sparse_product_into, "__defaults__", (7,))
    np.testing.assert_array_equal(Spectrum(k=2, normalize=False)(X, Y), naive_spectrum(X, Y, 2))


def test_check_kernel_catches_a_broken_string_kernel():
    class BadDiag(Spectrum):
        def _diag(self, X):
            return 2.0 * super()._diag(X)

    with pytest.raises(AssertionError, match="diag"):
        check_kernel(BadDiag(k=1), random_strings(10, seed=1))
