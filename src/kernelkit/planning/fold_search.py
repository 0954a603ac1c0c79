"""How the alphas of one training fold are solved: which share a float32 factor, which a
low-rank one.

The exact k-fold search of :class:`~kernelkit.models.KernelRidgeCV` solves
``(K + a I) U = Y`` on each fold's m training rows for every alpha ``a`` of the grid
(:func:`kernelkit.tuning.fold_path.fold_solves`). Each group of alphas is solved
either by one float64 Cholesky factor per alpha (``shift`` None), or by one float32
factor of ``K + a_ref I`` preconditioning batched float64 conjugate gradient for the
group's alphas. :func:`plan_fold_solves` predicts the time of every grouping of the
sorted alphas into contiguous groups (a group's cost does not depend on the others,
so dynamic programming over the sorted alphas finds the cheapest exactly) and returns
the cheapest as plain values.

The cost model
--------------
- a float64 factor: m^3/3 flops at the ``cholesky`` rate, then its two triangular
  solves and the residual check (4 m^2 t at the ``gemm`` rate), and the copy of K
  (m^2 at the ``elementwise`` rate);
- a float32 factor: m^3/3 at :data:`FLOAT32_SPEEDUP` x the ``cholesky`` rate, the
  copy of K, and the final residual check of the group (2 m^2 k t at ``gemm``);
- one CG iteration with k active columns, memory-bound (measured on the 2-core
  machine at m = 2000 and 12,800): the product with K, for up to
  :data:`PRODUCT_COMPILED_MAX` columns one compiled pass over K's lower triangle costing
  ``max(SYMMETRIC_PRODUCT_MIN, SYMMETRIC_PRODUCT_PER_COLUMN * k)`` reads of its 8 m^2
  bytes at :data:`GEMV_STREAM_FRACTION` x the ``stream`` rate
  (:data:`SKINNY_GEMM_READS` for a GEMM beyond); the preconditioner's two float32
  triangular solves, one compiled pass per direction for all columns up to
  :data:`TRIANGULAR_COMPILED_MAX` costing ``TRIANGULAR_BASE + TRIANGULAR_PER_COLUMN *
  k`` such reads (one LAPACK ``strtrs`` pair of about :data:`TRIANGULAR_TRTRS_READS`
  reads beyond); plus
  :data:`ITERATION_OVERHEAD_S`; so a
  factor per alpha with a few refinement iterations is cheaper than sharing a factor
  whenever the factor costs less than a few tens of iterations;
- the float32 groups run as one batched CG (``merged``: each iteration one product
  with K for every group's active columns, then each group's solves with its own
  factor), when their factors fit in memory at once: :func:`merged_seconds`. The
  grouping is chosen on the groups' separate costs (merging only lowers the cost of
  plans with several float32 groups, so the choice errs towards fewer factors);
- the iterations of alpha ``a`` preconditioned at ``a_ref``: the preconditioned
  matrix's eigenvalues lie in ``[min(1, a/a_ref), max(1, a/a_ref)]``, so its
  condition number is ``kappa = max(a, a_ref) / min(a, a_ref)`` and CG needs about
  ``ITERATION_CONSTANT * 0.5 * sqrt(kappa) * ln(2 / rtol)`` iterations
  (:func:`cg_iterations`); a group iterates until its slowest alpha is done, the
  others leaving the batch as they finish;
- with ``low_rank=(rank, tail)`` (a rank-``rank`` Nystroem factor of the fold's K
  whose smallest kept eigenvalue is ``tail``, measured on the search's first fold by
  :func:`kernelkit.tuning.low_rank.randomly_pivoted_cholesky`), a group may instead
  be preconditioned by that factor (:class:`kernelkit.tuning.low_rank.LowRankPreconditioner`):
  :data:`LOW_RANK_SETUP_MRR` m rank^2 flops at the ``gemm`` rate (and
  :data:`LOW_RANK_SETUP_PER_RANK2_S` rank^2 seconds) to build,
  :data:`LOW_RANK_APPLY_BASE` + :data:`LOW_RANK_APPLY_PER_COLUMN` k reads of its m x
  rank float64 matrix per iteration, and ``kappa = 1 + LOW_RANK_ERROR * tail / a``
  (:func:`low_rank_iterations`, from the bound's rate ``(sqrt(kappa) - 1) /
  (sqrt(kappa) + 1)`` per iteration, as kappa is often near 1): no m^3 factor, so
  large alphas, for which K's left-out eigenvalues are small, come almost free.

Why this module is long: each cost constant carries the measurement it comes from,
and the three consumers of the one cost model -- the exact dynamic programme over
groupings, the merged-run cost and the ``plan_`` record of predicted against taken --
must read the same constants, so they live together.

References
----------
Saad, Y. (2003). Iterative Methods for Sparse Linear Systems, 2nd ed., sec. 6.11.3
(the conjugate gradient's convergence bound). SIAM.
Frangella, Z., Tropp, J. A. and Udell, M. (2023). Randomized Nystroem
preconditioning. SIAM Journal on Matrix Analysis and Applications 44(2), 718-752.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._units import format_seconds
from .choices import Choice
from .costs import rates_in_force

__all__ = ["FoldSolvePlan", "plan_fold_solves", "cg_iterations", "group_seconds",
           "merged_seconds", "fold_solves_choice",
           "FLOAT32_SPEEDUP", "ITERATION_CONSTANT", "EXACT_SHIFT_ITERATIONS",
           "ITERATION_OVERHEAD_S", "FOLD_RTOL", "GEMV_STREAM_FRACTION",
           "SKINNY_GEMM_READS", "PRODUCT_COMPILED_MAX", "SYMMETRIC_PRODUCT_MIN",
           "SYMMETRIC_PRODUCT_PER_COLUMN", "TRIANGULAR_COMPILED_MAX", "TRIANGULAR_BASE",
           "TRIANGULAR_PER_COLUMN", "TRIANGULAR_TRTRS_READS", "low_rank_iterations",
           "is_low_rank", "low_rank_worth_probing", "LOW_RANK_ERROR", "LOW_RANK_SETUP_MRR",
           "LOW_RANK_SETUP_PER_RANK2_S", "LOW_RANK_APPLY_BASE", "LOW_RANK_APPLY_PER_COLUMN",
           "LOW_RANK_APPLY_OVERHEAD_S"]

#: Relative residual every alpha is solved to (:data:`kernelkit.tuning.fold_path.FOLD_RTOL`).
FOLD_RTOL = 1e-12
#: Float32 Cholesky and triangular solves over float64 ones (the issue's quiet machine:
#: float32 GEMM 130-155 GFLOP/s, float64 70-77).
FLOAT32_SPEEDUP = 2.0
#: The constant of :func:`cg_iterations`, measured on California (RBF gamma 0.5,
#: 1,500 and 5,000 rows, rtol 1e-12): kappa 10 took 44-46 iterations (bound 44.8),
#: kappa 100 took 127-149 (bound 141.6), so 1.0.
ITERATION_CONSTANT = 1.0
#: Iterations when the alpha is the factor's own shift (kappa 1: only the float32
#: factor's error is left): measured 5-6 in shared groups; a factor per alpha on
#: California (m = 1600-3200, gamma 0.1-2, alphas 1e-3-10) took 2.8-4.4 per alpha.
EXACT_SHIFT_ITERATIONS = 5
#: Seconds of one CG iteration besides its arithmetic (about ten numpy calls on
#: m x k arrays and their Python).
ITERATION_OVERHEAD_S = 2e-4
#: A float64 matrix-vector product's read rate over the ``stream`` rate (which
#: ``kernelkit calibrate`` measures as ``B @ u`` and ``B.T @ w`` together): 0.85.
GEMV_STREAM_FRACTION = 0.85
#: Reads of the matrix OpenBLAS's GEMM costs with more columns than the compiled
#: product takes: about 4 matrix-vector products' time (measured 4.2-4.4 for 5-16
#: columns at m = 6400).
SKINNY_GEMM_READS = 4.0
#: The compiled product with K's lower triangle
#: (:func:`kernelkit._compiled.symmetric_matmat_t`) for up to ``PRODUCT_COMPILED_MAX``
#: columns, in matrix-vector products' time: ``max(MIN, PER_COLUMN * k)``, measured at
#: m = 12,800 against a product of 0.034 s (1-3 columns 0.71-0.74, 5 columns 1.03,
#: 8 columns 1.50, 12 columns 2.25).
PRODUCT_COMPILED_MAX = 16
SYMMETRIC_PRODUCT_MIN = 0.7
SYMMETRIC_PRODUCT_PER_COLUMN = 0.19
#: Columns up to which both triangular solves are one compiled pass each for all
#: columns (:func:`kernelkit._compiled.cho_solve_t`), as
#: :data:`kernelkit.tuning.fold_path.TRIANGULAR_COMPILED_MAX`; their cost in
#: matrix-vector products' time ``BASE + PER_COLUMN * k``, measured at m = 12,800
#: against a product of 0.0245 s, since the backward solve takes two columns per pass
#: (1 column 0.95, 2 columns 1.04, 3 columns 1.26, 5 columns 1.65, 8 columns 2.08,
#: 12 columns 2.85; before: 0.82, 0.97, 1.3, 1.83, 2.48, 3.05).
TRIANGULAR_COMPILED_MAX = 12
TRIANGULAR_BASE = 0.74
TRIANGULAR_PER_COLUMN = 0.174
#: The two LAPACK triangular solves (``strtrs``) with more columns than that, for all
#: of them, in matrix-vector products' time (measured 3.5-4.5 for 8-12 columns at
#: m = 6400-12,800).
TRIANGULAR_TRTRS_READS = 4.5
#: ``||K - F F'||`` over the low-rank factor's smallest kept eigenvalue in the
#: iteration estimate's ``kappa = 1 + LOW_RANK_ERROR * tail / alpha``: fitted on
#: California (m = 12,800, RBF gamma 0.5-2, rank 1000, alphas 0.1-10, rtol 1e-12),
#: where the iterations taken gave 6.3-14.4; 15 errs towards a factor.
LOW_RANK_ERROR = 15.0
#: The low-rank preconditioner's construction (randomly pivoted Cholesky, ``F'F``, its
#: eigendecomposition, ``G = F V`` in both layouts): ``MRR * m * rank^2`` flops at the
#: ``gemm`` rate plus ``PER_RANK2_S * rank^2`` seconds (the r x r eigendecomposition and
#: the Python of the pivot blocks, which dominate at small m). Measured with GEMM at 103
#: GFLOP/s: 0.051 / 0.214 / 0.919 / 1.415 s at m = 2400 / 4800 / 9600 / 12,800 (rank
#: m / 10, at most 1000); this gives 0.041 / 0.22 / 1.36 / 1.82 s (within -20 % /
#: +50 %).
LOW_RANK_SETUP_MRR = 11.0
LOW_RANK_SETUP_PER_RANK2_S = 4.5e-7
#: One application to k columns: ``BASE + PER_COLUMN * k`` reads of the m x rank
#: float64 matrix at the ``stream`` rate (two compiled passes,
#: :data:`kernelkit.tuning.low_rank.APPLY_COMPILED_MAX`) plus ``OVERHEAD_S``; measured
#: 2.5 / 3.6 ms for 2 / 5 columns at m = 4800, rank 480, and 8.1 / 13.2 ms at m =
#: 12,800, rank 1000 (GEMM: 3.9-4.4 and 21-24 ms).
LOW_RANK_APPLY_BASE = 2.0
LOW_RANK_APPLY_PER_COLUMN = 0.5
LOW_RANK_APPLY_OVERHEAD_S = 1e-3


@dataclass(frozen=True)
class FoldSolvePlan:
    """The grouping :func:`plan_fold_solves` chose.

    Attributes
    ----------
    groups : tuple of (tuple of int, float or None or ("rank", int))
        Indices into ``alphas`` of each group and its float32 factor's shift; shift
        None: one float64 Cholesky factor per alpha of the group; ``("rank", r)``:
        the fold's rank-r low-rank preconditioner (:func:`is_low_rank`). Plain
        values, given to :func:`kernelkit.tuning.fold_path.fold_solves` as they are.
    iterations : tuple of int
        Predicted CG iterations of each group (0 for float64 factors).
    seconds : float
        Predicted time of the chosen grouping.
    alternatives : dict
        Predicted seconds of reference groupings: ``"one factor"`` (one float32
        factor for all), ``"float64 per alpha"``.
    merged : tuple or None
        ``(seconds, iterations)`` of the same groups with their float32 groups in one
        batched CG (:func:`merged_seconds`); None with fewer than two float32 groups.
    """

    groups: tuple
    iterations: tuple
    seconds: float
    alternatives: dict
    merged: tuple | None = None

    @property
    def factors(self):
        """Cholesky factors the plan computes (float32 per group, float64 per alpha;
        a low-rank group has none)."""
        return sum(len(idx) if s is None else 0 if is_low_rank(s) else 1
                   for idx, s in self.groups)

    @property
    def float32_groups(self):
        """Groups on a float32 factor of their own."""
        return sum(s is not None and not is_low_rank(s) for _, s in self.groups)

    @property
    def low_rank(self):
        """The rank of the plan's low-rank preconditioner (0: none)."""
        return max((int(s[1]) for _, s in self.groups if is_low_rank(s)), default=0)

    def describe(self, alphas):
        """The groups in words, e.g. ``"float32 at 0.01 for [0.001, 0.01, 0.1] (45 it)"``."""
        alphas = np.asarray(alphas, dtype=np.float64)
        parts = []
        for (idx, shift), it in zip(self.groups, self.iterations):
            values = ", ".join(f"{alphas[i]:g}" for i in idx)
            parts.append(f"float64 per alpha for [{values}]" if shift is None else
                         f"rank-{shift[1]} Nystroem for [{values}] (~{it} it)"
                         if is_low_rank(shift) else
                         f"float32 at {shift:.3g} for [{values}] (~{it} it)")
        return "; ".join(parts)


def cg_iterations(alpha, shift, rtol=FOLD_RTOL):
    """Predicted CG iterations for ``K + alpha I`` preconditioned by ``K + shift I``."""
    kappa = max(alpha, shift) / min(alpha, shift)
    if kappa <= 1.0 + 1e-9:
        return EXACT_SHIFT_ITERATIONS
    bound = ITERATION_CONSTANT * 0.5 * math.sqrt(kappa) * math.log(2.0 / rtol)
    return int(max(EXACT_SHIFT_ITERATIONS, math.ceil(bound)))


def is_low_rank(shift):
    """Whether a group's ``shift`` names the low-rank preconditioner (``("rank", r)``)."""
    return isinstance(shift, tuple) and len(shift) == 2 and shift[0] == "rank"


def low_rank_iterations(alpha, tail, rtol=FOLD_RTOL):
    """Predicted CG iterations for ``K + alpha I`` preconditioned by a low-rank factor
    whose smallest kept eigenvalue is ``tail``."""
    kappa = 1.0 + LOW_RANK_ERROR * max(float(tail), 0.0) / alpha
    root = math.sqrt(kappa)
    if root - 1.0 < 1e-9:
        return EXACT_SHIFT_ITERATIONS
    # the bound's own rate ((sqrt k - 1) / (sqrt k + 1) per iteration), not its large-
    # kappa form: kappa near 1 is the common case here (measured 4-9 iterations at
    # kappa 1.0-1.2, 36-38 at 7.2, 109 at 59; this gives 5-8, 36, 108)
    bound = math.log(2.0 / rtol) / math.log((root + 1.0) / (root - 1.0))
    return int(max(EXACT_SHIFT_ITERATIONS, math.ceil(bound)))


def _low_rank_setup_seconds(m, rank, r):
    return LOW_RANK_SETUP_MRR * m * rank ** 2 / r["gemm"] + LOW_RANK_SETUP_PER_RANK2_S * rank ** 2


def _low_rank_apply_seconds(m, rank, k, r):
    reads = LOW_RANK_APPLY_BASE + LOW_RANK_APPLY_PER_COLUMN * k
    return (max(reads * 8.0 * m * rank / r["stream"], 4.0 * m * rank * k / r["gemm"])
            + LOW_RANK_APPLY_OVERHEAD_S)


def _gemv_seconds(m, r):
    """One memory-bound read of the float64 m x m matrix."""
    return 8.0 * m * m / (GEMV_STREAM_FRACTION * r["stream"])


def _product_seconds(m, k, r):
    """A float64 product of K with k columns: memory-bound reads or flops."""
    if k <= PRODUCT_COMPILED_MAX:
        reads = max(SYMMETRIC_PRODUCT_MIN, SYMMETRIC_PRODUCT_PER_COLUMN * k)
    else:
        reads = SKINNY_GEMM_READS
    return max(reads * _gemv_seconds(m, r), 2.0 * m * m * k / r["gemm"])


def _solve_seconds(m, k, r):
    """The preconditioner's two float32 triangular solves with k columns: one compiled
    pass per direction for all of them, or one LAPACK ``strtrs`` pair beyond."""
    reads = (TRIANGULAR_BASE + TRIANGULAR_PER_COLUMN * k if k <= TRIANGULAR_COMPILED_MAX
             else TRIANGULAR_TRTRS_READS)
    return reads * _gemv_seconds(m, r)


def _blas_columns_seconds(m, k, r):
    """A float64 product or solve with k columns through BLAS/LAPACK (the direct
    path's ``potrs`` and residual products): at most :data:`SKINNY_GEMM_READS` reads."""
    reads = min(float(k), SKINNY_GEMM_READS)
    return max(reads * _gemv_seconds(m, r), 2.0 * m * m * k / r["gemm"])


def _iteration_seconds(m, k, r):
    return _product_seconds(m, k, r) + _solve_seconds(m, k, r) + ITERATION_OVERHEAD_S


def _preconditioner_seconds(m, shift, k, r):
    """One application of a group's preconditioner to k columns."""
    if is_low_rank(shift):
        return _low_rank_apply_seconds(m, shift[1], k, r)
    return _solve_seconds(m, k, r)


def _setup_seconds(m, shift, r):
    """A group's preconditioner: the float32 factor with its copy of K, or the
    low-rank factor."""
    if is_low_rank(shift):
        return _low_rank_setup_seconds(m, shift[1], r)
    return m ** 3 / 3.0 / (FLOAT32_SPEEDUP * r["cholesky"]) + m * m / r["elementwise"]


def _group_iterations(alphas, shift, tail, rtol):
    if is_low_rank(shift):
        return [low_rank_iterations(a, tail, rtol) for a in alphas]
    return [cg_iterations(a, shift, rtol) for a in alphas]


def group_seconds(m, alphas, shift, n_targets=1, rates=None, rtol=FOLD_RTOL, tail=None):
    """(predicted seconds, CG iterations) of one group: ``shift`` None is a float64
    factor per alpha, a float is one float32 factor at ``shift`` and batched CG,
    ``("rank", r)`` the low-rank preconditioner whose smallest kept eigenvalue is
    ``tail`` and batched CG."""
    r = rates_in_force(rates)
    if shift is None:  # + two float64 triangular solves and the residual check: 2 reads
        copy = m * m / r["elementwise"]  # K copied into the factor's array
        solve = 2.0 * _blas_columns_seconds(m, n_targets, r)
        return len(alphas) * (m ** 3 / 3.0 / r["cholesky"] + solve + copy), 0
    its = sorted(_group_iterations(alphas, shift, tail, rtol))
    seconds = (_setup_seconds(m, shift, r)
               + _product_seconds(m, len(its) * n_targets, r))  # + the residual check
    done = 0
    for j, it in enumerate(its):  # columns leave the batch as their alpha converges
        k = (len(its) - j) * n_targets
        seconds += (it - done) * (_product_seconds(m, k, r) + ITERATION_OVERHEAD_S
                                  + _preconditioner_seconds(m, shift, k, r))
        done = it
    return seconds, its[-1]


def merged_seconds(m, alphas, groups, n_targets=1, rates=None, rtol=FOLD_RTOL, tail=None):
    """(predicted seconds, CG iterations) of ``groups`` with their CG groups in one
    batched CG: every float32 factor and the low-rank one (built once, however many
    low-rank groups), then iterations each costing one product with K for all active
    columns and each group's preconditioner for its own; float64 groups as in
    :func:`group_seconds`."""
    r = rates_in_force(rates)
    alphas = np.asarray(alphas, dtype=np.float64)
    seconds = 0.0
    finish = []  # (iterations, group) per alpha of a CG group
    low_rank_built = False  # one low-rank factor serves every low-rank group
    for g, (idx, shift) in enumerate(groups):
        members = alphas[np.asarray(idx, dtype=np.intp)]
        if shift is None:
            seconds += group_seconds(m, members, None, n_targets, r, rtol)[0]
            continue
        if not (is_low_rank(shift) and low_rank_built):
            seconds += _setup_seconds(m, shift, r)
        low_rank_built = low_rank_built or is_low_rank(shift)
        finish += [(it, g) for it in _group_iterations(members, shift, tail, rtol)]
    if not finish:
        return seconds, 0
    seconds += _product_seconds(m, len(finish) * n_targets, r)  # the residual check
    active = {}
    for _, g in finish:
        active[g] = active.get(g, 0) + 1
    done = 0
    for it, g in sorted(finish):  # columns leave the batch as their alpha converges
        if it > done:
            cols = sum(active.values()) * n_targets
            per = (_product_seconds(m, cols, r) + ITERATION_OVERHEAD_S
                   + sum(_preconditioner_seconds(m, groups[g][1], c * n_targets, r)
                         for g, c in active.items() if c))
            seconds += (it - done) * per
            done = it
        active[g] -= 1
    return seconds, done


def plan_fold_solves(m, alphas, n_targets=1, rates=None, rtol=FOLD_RTOL, low_rank=None):
    """The cheapest grouping of ``alphas`` for a training fold of ``m`` rows.

    Parameters
    ----------
    m : int
        Training rows of the fold.
    alphas : sequence of float
        Each > 0, any order.
    n_targets : int, default=1
    rates : dict, optional
        Overrides of the rates in force (``kernelkit.get_config()["rates"]``).
    rtol : float, default=:data:`FOLD_RTOL`
    low_rank : (int, float), optional
        ``(rank, tail)`` of a low-rank factor of the fold's K (rank and smallest kept
        eigenvalue, :class:`kernelkit.tuning.low_rank.LowRankPreconditioner`): groups
        may then be preconditioned by it. None: float32 and float64 factors only.

    Returns
    -------
    FoldSolvePlan
        Groups of contiguous sorted alphas, each with the geometric middle of its
        extremes as shift (or None: float64 per alpha; or ``("rank", rank)``: the
        low-rank preconditioner), minimising the predicted time over all contiguous
        groupings (dynamic programming, exact).
    """
    alphas = np.asarray(alphas, dtype=np.float64)
    order = np.argsort(alphas, kind="stable")
    s = alphas[order]
    k = s.size
    best = [(0.0, ())] + [None] * k  # best[i]: cheapest plan of the first i sorted alphas
    for end in range(1, k + 1):
        for start in range(end):
            members = s[start:end]
            options = [(None, *group_seconds(m, members, None, n_targets, rates, rtol))]
            shift = float(math.sqrt(members[0] * members[-1]))
            options.append((shift, *group_seconds(m, members, shift, n_targets, rates, rtol)))
            if low_rank is not None:
                lr = ("rank", int(low_rank[0]))
                options.append((lr, *group_seconds(m, members, lr, n_targets, rates, rtol,
                                                   tail=low_rank[1])))
            for shift, sec, it in options:
                total = best[start][0] + sec
                if best[end] is None or total < best[end][0] - 1e-15:
                    group = (tuple(int(i) for i in order[start:end]), shift, it)
                    best[end] = (total, best[start][1] + (group,))
    seconds, chosen = best[k]
    one = group_seconds(m, s, float(math.sqrt(s[0] * s[-1])), n_targets, rates, rtol)[0]
    direct = group_seconds(m, s, None, n_targets, rates, rtol)[0]
    groups = tuple((g[0], g[1]) for g in chosen)
    merged = (merged_seconds(m, alphas, groups, n_targets, rates, rtol,
                             tail=None if low_rank is None else low_rank[1])
              if sum(shift is not None for _, shift in groups) > 1 else None)
    return FoldSolvePlan(groups, tuple(g[2] for g in chosen), seconds,
                         {"one factor": one, "float64 per alpha": direct}, merged)


def low_rank_worth_probing(m, rank, alphas, n_targets=1, rates=None, rtol=FOLD_RTOL):
    """Whether a rank-``rank`` low-rank probe of a fold of ``m`` rows can pay for its m
    rank^2 flops: some group of the cheapest plan takes the low rank when it serves every
    alpha at once (a zero tail). False: the plan without it is cheaper whatever the
    probe finds."""
    plan = plan_fold_solves(m, alphas, n_targets, rates, rtol, low_rank=(rank, 0.0))
    return plan.low_rank > 0


def fold_solves_choice(plan, alphas, m, solves, taken_iterations, fallbacks, residual,
                       taken_seconds=None, fallback_alphas=(), refit_fallback=False,
                       refit_residual=None, merged=None, kernel_plans=None,
                       refit_low_rank=0, notes=()):
    """The plan and what the solves took, as the ``"fold solves"`` :class:`Choice`
    (``taken_seconds``: the solves' time summed over the ``solves`` folds, if timed).

    ``fallbacks`` counts the (fold, alpha) solves whose CG stopped short of the
    tolerance and switched to the alpha's own float64 Cholesky factor (which
    ``fallback_alphas``); ``refit_fallback``: the refit's solve did;
    ``refit_residual``: the refit's final relative residual, if given; ``merged``:
    whether the CG groups (float32 factors, the low-rank one) ran as one batched CG
    (True), one after the other because their preconditioners did not fit the memory
    budget at once (False), or there was nothing to merge (None); ``kernel_plans``:
    ``(label, plan, tail, merged)`` per candidate kernel (``tail`` the smallest kept
    eigenvalue of its low-rank probe or None, ``merged`` as above for that kernel), in
    place of ``plan`` and ``merged``; ``refit_low_rank``: the rank of the refit's
    low-rank preconditioner (0: none); ``notes``: further sentences (e.g. a probe
    skipped, a low-rank plan dropped after its first fold)."""
    entries = kernel_plans or [(None, plan, None, merged)]

    def one_run(p, how):  # this plan's CG groups ran as one
        return bool(how) and p.merged is not None

    predicted = np.mean([p.merged[1] if one_run(p, how) else sum(p.iterations)
                         for _, p, _, how in entries])
    seconds = float(np.mean([p.merged[0] if one_run(p, how) else p.seconds
                             for _, p, _, how in entries]))
    alt = ", ".join(
        f"{k} {format_seconds(np.mean([p.alternatives[k] for _, p, _, _ in entries]))}"
        for k in plan.alternatives)
    taken = (f"{taken_iterations / max(solves, 1):.0f} CG iterations per fold taken vs "
             f"{predicted:.0f} predicted, " if predicted else "")
    timed = ("" if taken_seconds is None else
             f"; {format_seconds(taken_seconds / max(solves, 1))} per fold taken")
    flags = [how for _, p, _, how in entries if how is not None]
    if not flags:
        how = ""
    elif all(flags):
        how = ("; the CG groups in one batched CG (one pass over K per iteration for "
               "all of them, their preconditioners held at once)")
    elif not any(flags):
        how = ("; the CG groups one after the other (their preconditioners at once do not "
               "fit the memory budget)")
    else:
        how = (f"; the CG groups in one batched CG for {sum(flags)} of {len(flags)} "
               "kernels, one after the other for the others (the memory budget)")
    if fallbacks:
        which = ", ".join(f"{a:g}" for a in sorted(set(fallback_alphas)))
        switched = (f"{fallbacks} fold solves switched from CG, short of the tolerance, to "
                    f"their alpha's own float64 factor" + (f" (alpha = {which})" if which
                                                           else ""))
    else:
        switched = "no switch from CG to a float64 factor"
    refit = ("; the refit's CG also switched to a float64 factor" if refit_fallback
             else "")
    if refit_low_rank:
        refit += f"; the refit preconditioned by a rank-{refit_low_rank} Nystroem factor"
    if kernel_plans:
        value = " | ".join(
            f"{label}: {p.describe(alphas)}"
            + ("" if tail is None else f" (low-rank tail {tail:.2g})")
            for label, p, tail, _ in kernel_plans)
        per = ("per kernel, from its first fold's low-rank probe where it ran, averaged: "
               if any(tail is not None for _, _, tail, _ in kernel_plans)
               else "per kernel, averaged: ")
    else:
        value, per = plan.describe(alphas), ""
    return Choice("fold solves", value,
                  f"cheapest grouping predicted at m = {m} rows: {per}"
                  f"{format_seconds(seconds)} per fold ({alt}){how}{timed}; {taken}"
                  f"{switched}{refit}, largest relative residual {residual:.1e}"
                  + ("" if refit_residual is None
                     else f" (the refit's {refit_residual:.1e})")
                  + "".join(f"; {n}" for n in notes))
