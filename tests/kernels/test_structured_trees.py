"""SubsetTree, the kernel of Collins and Duffy (2001), against an enumeration of the
common subset trees (fragments) and the paper's example; trees parsed and checked."""

import itertools
from collections import Counter

import numpy as np
import pytest

from kernelkit._compiled._reference import subset_tree_pair_ref
from kernelkit.exceptions import InvalidParameterError
from kernelkit.kernels import SubsetTree, Tree, parse_kernel, parse_tree
from kernelkit.testing import check_kernel


# ---- the independent reference: list every fragment -------------------------------
def _fragments(tree):
    """Counter of (fragment text, size) over every subset tree rooted anywhere in ``tree``.

    A fragment rooted at node g: g's label and all its children, each child either a
    frontier label or expanded by one of the fragments rooted at it (leaves: their
    label only). Size = number of productions (internal nodes of the fragment).
    """
    rooted = {}
    for g in reversed(range(len(tree.labels))):  # children before parents
        kids = tree.children[g]
        if not kids:
            continue
        options = []
        for c in kids:
            opts = [(tree.labels[c], 0)]
            if tree.children[c]:
                opts += rooted[c]
            options.append(opts)
        rooted[g] = [("(" + tree.labels[g] + " " + " ".join(t for t, _ in combo) + ")",
                      1 + sum(s for _, s in combo))
                     for combo in itertools.product(*options)]
    return Counter(f for fr in rooted.values() for f in fr)


def _brute(t1, t2, decay):
    f1, f2 = _fragments(parse_tree(t1)), _fragments(parse_tree(t2))
    return sum(decay ** size * c * f2[(text, size)] for (text, size), c in f1.items())


def _grammar_trees(n, seed, depth=3):
    """Trees of a tiny grammar: S -> NP VP; NP -> D N | N | NP PP; VP -> V | V NP | VP PP;
    PP -> P NP; words from a small lexicon."""
    rng = np.random.default_rng(seed)
    lexicon = {"D": ["the", "a"], "N": ["dog", "cat", "park"], "V": ["saw", "ran"],
               "P": ["in", "with"]}
    rules = {"S": [["NP", "VP"]], "NP": [["D", "N"], ["N"], ["NP", "PP"]],
             "VP": [["V"], ["V", "NP"], ["VP", "PP"]], "PP": [["P", "NP"]]}

    def expand(sym, d):
        if sym in lexicon:
            return (sym, str(rng.choice(lexicon[sym])))
        options = rules[sym] if d > 0 else [r for r in rules[sym] if sym not in r]
        rule = options[int(rng.integers(len(options)))]
        return (sym, *[expand(s, d - 1) for s in rule])

    return [parse_tree(expand("S", depth)) for _ in range(n)]


# ---- values ------------------------------------------------------------------------
def test_paper_example_six_fragments():
    """Collins & Duffy's figure: the NP "the apple" has 6 subset trees."""
    t = "(NP (D the) (N apple))"
    assert sum(_fragments(parse_tree(t)).values()) == 6
    assert SubsetTree(decay=1.0, normalize=False)([t])[0, 0] == 6.0
    lam = 0.3  # sizes 1, 1, 1, 2, 2, 3: 3 lam + 2 lam^2 + lam^3
    np.testing.assert_allclose(SubsetTree(decay=lam, normalize=False)([t])[0, 0],
                               3 * lam + 2 * lam ** 2 + lam ** 3, rtol=1e-15)


@pytest.mark.parametrize("decay", [1.0, 0.5, 0.2])
def test_equals_the_enumeration_of_common_fragments(decay):
    trees = _grammar_trees(10, seed=1, depth=2) + [
        parse_tree("(S (NP a) (VP b))"), parse_tree("(S (NP a) (VP (V c) (NP d)))"),
        parse_tree("(X)"), parse_tree("(A (B (C d e) f) (B (C d e) f))")]
    k = SubsetTree(decay=decay, normalize=False)
    ref = np.array([[_brute(a, b, decay) for b in trees] for a in trees])
    np.testing.assert_allclose(k(trees), ref, rtol=1e-12)
    np.testing.assert_allclose(k.diag(trees), np.diag(ref), rtol=1e-12)
    kn = SubsetTree(decay=decay)(trees)
    d = np.sqrt(np.diag(ref))
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = np.where(np.outer(d, d) > 0, ref / np.outer(d, d), 0.0)
    np.fill_diagonal(expected, (d > 0).astype(float))  # the lone leaf "(X)": 0
    np.testing.assert_allclose(kn, expected, rtol=1e-12, atol=1e-15)


def test_compiled_equals_the_python_twin_on_larger_trees():
    trees = _grammar_trees(12, seed=2, depth=5)
    K = SubsetTree(decay=0.4, normalize=False)(trees[:5], trees)
    ref = [[subset_tree_pair_ref(a, b, 0.4) for b in trees] for a in trees[:5]]
    np.testing.assert_allclose(K, ref, rtol=1e-12)


@pytest.mark.parametrize("kernel", [SubsetTree(), SubsetTree(decay=0.3, normalize=False),
                                    SubsetTree(decay=1.0) + 0.5 * SubsetTree(decay=0.2)])
def test_kernel_contract(kernel):
    check_kernel(kernel, _grammar_trees(20, seed=3, depth=3))


def test_normalized_diagonal_is_one_and_registry():
    trees = _grammar_trees(8, seed=4)
    assert np.all(SubsetTree().diag(trees) == 1.0)
    assert np.all(np.diag(SubsetTree()(trees)) == 1.0)
    assert parse_kernel("sst(decay=0.3)") == SubsetTree(decay=0.3)
    assert parse_kernel("collins_duffy(normalize=False)") == SubsetTree(normalize=False)
    with pytest.raises(InvalidParameterError):
        SubsetTree(decay=0.0)
    with pytest.raises(InvalidParameterError):
        SubsetTree(decay=1.5)


# ---- trees as inputs ---------------------------------------------------------------
def test_bracket_text_and_nested_tuples_give_the_same_tree():
    a = parse_tree("(S (NP (D the) (N dog))\n   (VP barks))")
    b = parse_tree(("S", ("NP", ("D", "the"), ("N", "dog")), ("VP", "barks")))
    c = parse_tree(["S", ["NP", ["D", "the"], ["N", "dog"]], ["VP", "barks"]])
    assert a == b == c and a.text == "(S (NP (D the) (N dog)) (VP barks))"
    assert parse_tree(a.text) == a and parse_tree(a) is a
    assert a.labels == ("S", "NP", "D", "the", "N", "dog", "VP", "barks")
    assert a.children[0] == (1, 6) and a.children[3] == ()
    K = SubsetTree()([a.text, ("S", ("NP", ("D", "the"), ("N", "dog")), ("VP", "barks"))])
    np.testing.assert_allclose(K, 1.0)


def test_a_deep_tree_needs_no_recursion():
    """A chain A0 -> A1 -> ... -> x deeper than Python's recursion limit: parsed,
    rendered and computed; only the node pairs at the same level share productions,
    C_i = lam (1 + C_{i+1}), so k(T, T) = sum_i sum_{s=1}^{d-i} lam^s."""
    depth = 1500
    text = "".join(f"(A{i} " for i in range(depth)) + "x" + ")" * depth
    t = parse_tree(text)
    assert len(t) == depth + 1 and t.text == text
    lam = 0.5
    expected = sum(sum(lam ** s for s in range(1, depth - i + 1)) for i in range(depth))
    k = SubsetTree(decay=lam, normalize=False)
    np.testing.assert_allclose(k.diag([t])[0], expected, rtol=1e-12)


def test_scratch_beyond_the_budget_is_refused():
    from kernelkit import config
    from kernelkit.exceptions import MemoryBudgetError

    t = parse_tree("".join(f"(A{i} " for i in range(1200)) + "x" + ")" * 1200)
    with config.config_context(memory="16MB"), pytest.raises(MemoryBudgetError,
                                                             match="subset-tree"):
        SubsetTree()([t, t])


@pytest.mark.parametrize("bad, error, words", [
    (["(S (NP a) (VP b)"], ValueError, r"X\[0\]: unbalanced parentheses: 1 '\(' not closed"),
    (["(S a))"], ValueError, r"X\[0\]: text after the end"),
    (["(S a) (T b)"], ValueError, r"X\[0\]: text after the end"),
    (["(S a)", "S a"], ValueError, r"X\[1\]: a tree in bracket notation starts with '\('"),
    (["( (S a))"], ValueError, r"empty outer brackets"),
    (["(S a)", 3], TypeError, r"X\[1\] is int"),
    ([("S", ("NP", 5))], TypeError, r"X\[0\]: a node label must be a str"),
    ([("S", ("NP a", "b"))], ValueError, r"X\[0\]: node label 'NP a' must be non-empty"),
    ([("S", ())], ValueError, r"X\[0\]: an empty tuple is not a node"),
    ("(S a)", TypeError, "single string"),
    ([], ValueError, "empty"),
])
def test_bad_trees_are_named(bad, error, words):
    with pytest.raises(error, match=words):
        SubsetTree().check_input(bad)


def test_trees_classified_by_svc_and_ridge():
    """Two grammars that share their words and labels but not their productions
    (adjectives before or after the noun): the tree kernel separates them."""
    from kernelkit import KernelRidgeClassifier, KernelSVC

    rng = np.random.default_rng(5)

    def np_phrase(after):
        n, a = rng.choice(["dog", "cat", "bird"]), rng.choice(["big", "red", "old"])
        return ("NP", ("D", "the"), ("N", n), ("A", a)) if after else \
            ("NP", ("D", "the"), ("A", a), ("N", n))

    def sentence(label):
        return ("S", np_phrase(label), ("VP", ("V", rng.choice(["saw", "ran"])),
                                        np_phrase(label)))

    y = np.arange(40) % 2
    X = [sentence(c) for c in y]
    for est in (KernelSVC(kernel=SubsetTree(decay=0.5), C=10.0),
                KernelRidgeClassifier(kernel=SubsetTree(decay=0.5), alpha=1e-2)):
        est.fit(X[:30], y[:30])
        assert (est.predict(X[30:]) == y[30:]).all()
