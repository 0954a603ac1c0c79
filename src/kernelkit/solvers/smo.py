"""Sequential minimal optimisation (SMO) for the soft-margin SVM dual, as libsvm.

Problem (binary, labels y_i in {-1, +1}, per-sample bounds C_i)::

    max_a  sum_i a_i - 1/2 sum_ij a_i a_j y_i y_j K_ij
    s.t.   0 <= a_i <= C_i,   sum_i a_i y_i = 0

Written as libsvm's minimisation of f(a) = 1/2 a'Qa - e'a with Q_ij = y_i y_j K_ij
and gradient G = Qa - e, kept up to date after every two-variable step.
The algorithm is Fan, Chen & Lin, "Working set selection using second order
information for training SVM", JMLR 6 (2005), as implemented in libsvm 3.x
(``Solver::Solve``): working-set selection 3 of that paper (i maximises the
violation -y_i G_i over I_up; j minimises the second-order decrease among
I_low, with tau = 1e-12 in place of a non-positive curvature so indefinite
kernels still make progress), stop when m(a) - M(a) < tol, shrinking every
min(n, 1000) iterations with one "unshrink" when the violation drops below
10 tol, and the gradient of shrunk variables rebuilt before the final check.

Two sources of kernel rows share one compiled loop:

- ``smo_gram``: the Gram matrix is given (the fast path while n^2 doubles fit
  in memory; a matrix product computes it at BLAS speed).
- ``smo_kernel``: rows computed on demand through the kernel's block API
  (:class:`~kernelkit.gram.KernelRows`), kept in an LRU cache sized by the
  memory budget. A miss computes the missing row together with the rows of
  the currently most violating uncached variables (one GEMM for a batch instead of one
  memory-bound GEMV per row: those are the rows SMO asks for next), the
  guesses only into empty slots (never evicting a row computed earlier).

The gradient of shrunk variables is rebuilt from the support vectors' rows
alone, by symmetry (K[sv, inactive]): n_SV x n entries read from a stored Gram
matrix instead of n x n, and no kernel value computed for the cached rows.

The loop is resumable: it returns to Python when it needs a row it does not
have or a gradient reconstruction, keeping its whole state in small arrays.
``smo_ref`` (in :mod:`._reference`) is the plain-numpy twin (same algorithm,
same tie-breaking), for tests. Pure numerics: no validation of user input, no
printing.

Why this module is long: its core is the one compiled WSS3 loop with shrinking
and gradient reconstruction, which must stay a single numba function to run at
libsvm's speed (leaving it for Python at each step would cost more than the
step); the row sources (a given Gram matrix, the Gram matrix filled row by row on
demand, the LRU cache of kernel rows), the shrunk problem copied together
(``_Compacted``), the warm starts along C (``seed_alpha``, ``smo_gram_path``) and
the drivers around it are short and only make sense beside that loop.

References
----------
Fan, R.-E., Chen, P.-H. and Lin, C.-J. (2005). Working set selection using
second order information for training support vector machines. Journal of
Machine Learning Research 6, 1889-1918.
Chang, C.-C. and Lin, C.-J. (2011). LIBSVM: a library for support vector
machines. ACM Transactions on Intelligent Systems and Technology 2(3), 27.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
from numba import njit

from .._budget import ROW_CACHE_SHARE, budget, fits, row_blocks, rows_per_block
from .._choices import Choice
from .._compiled import interruptible
from ..exceptions import InvalidParameterError
from ..gram import KernelRows
from ._rbf_rows import rbf_row_engine
from .buffers import RowPages, RowsAhead, fresh_empty

__all__ = ["SMOResult", "smo_gram", "smo_kernel", "smo_lazy_gram", "LazyGram", "seed_alpha",
           "smo_gram_path", "default_max_iter", "PROGRESS_CHUNK"]

TAU = 1e-12  # libsvm's replacement for a non-positive curvature a_ij

# status codes of the compiled loop
_DONE, _NEED_ROW, _NEED_RECON, _MAX_ITER, _COMPACT = 0, 1, 2, 3, 4
# phases (where to resume); _P_SELECT: the selection of i, right after a shrink
_P_TOP, _P_SHRINK_RESUME, _P_NEED_I, _P_NEED_J, _P_FINAL_RECON, _P_SELECT = 0, 1, 2, 3, 4, 5
# slots of the integer state
_PHASE, _ITER, _COUNTER, _UNSHRINK, _I, _J, _NEED, _NACT, _CLOCK, _RECHECK = range(10)
# slots of the float state: the shrinking thresholds (libsvm's Gmax1, Gmax2), the
# violation max -yG of the selected i, and the gap m(a) - M(a) of the last selection
_GMAX1, _GMAX2, _GMAX_I, _GAP = range(4)


@dataclass(frozen=True)
class SMOResult:
    """Solution of the binary SVM dual.

    Attributes
    ----------
    alpha : ndarray of shape (n,)
        Dual variables, 0 <= alpha_i <= C_i.
    bias : float
        b of f(x) = sum_i alpha_i y_i k(x_i, x) + b; b = -rho, rho as libsvm
        (mean of y_i G_i over free support vectors, else the middle of the
        feasible interval).
    n_iter : int
        Two-variable steps taken.
    dual_objective : float
        sum(alpha) - 1/2 alpha'Q alpha (to be maximised).
    primal_objective : float
        1/2 ||w||^2 + sum_i C_i max(0, 1 - y_i f(x_i)), from the gradient.
    duality_gap : float
        primal_objective - dual_objective (>= 0 up to round-off).
    max_violation : float
        m(alpha) - M(alpha) at the end (< tol when converged).
    converged : bool
    """

    alpha: np.ndarray
    bias: float
    n_iter: int
    dual_objective: float
    primal_objective: float
    duality_gap: float
    max_violation: float
    converged: bool


def default_max_iter(n):
    """libsvm's cap on iterations: max(10^7, 100 n)."""
    return max(10_000_000, 100 * int(n))


# --------------------------------------------------------------------------
# the compiled loop

@njit(cache=True, nogil=True, error_model="numpy")
def _row(rows, slot_of, last_use, istate, k):
    s = slot_of[k]
    last_use[s] = istate[_CLOCK]
    istate[_CLOCK] += 1
    return rows[s]


@njit(cache=True, nogil=True, error_model="numpy")
def _smo_loop(rows, slot_of, last_use, y, Cb, QD, alpha, G, active, istate, fstate,
              tol, max_iter, shrinking, n_whole, compact_below):
    # n_whole: the size of the whole problem (n < n_whole: these arrays hold the
    # variables of a compacted active set, see _Compacted); compact_below: after a
    # shrink leaving at most that many active variables, return _COMPACT (0: never)
    n = y.shape[0]
    while True:
        phase = istate[_PHASE]
        nact = istate[_NACT]
        if phase == _P_TOP or phase == _P_SHRINK_RESUME:
            if phase == _P_TOP:
                if istate[_ITER] >= max_iter:
                    return _MAX_ITER
                istate[_COUNTER] -= 1
                do_remove = False
                if istate[_COUNTER] == 0:
                    istate[_COUNTER] = min(n_whole, 1000)
                    if shrinking:
                        # libsvm do_shrinking: Gmax1 = max over I_up of -y G,
                        # Gmax2 = max over I_low of y G
                        gmax1 = -np.inf
                        gmax2 = -np.inf
                        for t in range(nact):
                            k = active[t]
                            up = alpha[k] >= Cb[k]
                            low = alpha[k] <= 0.0
                            if y[k] > 0:
                                if not up and -G[k] >= gmax1:
                                    gmax1 = -G[k]
                                if not low and G[k] >= gmax2:
                                    gmax2 = G[k]
                            else:
                                if not up and -G[k] >= gmax2:
                                    gmax2 = -G[k]
                                if not low and G[k] >= gmax1:
                                    gmax1 = G[k]
                        fstate[_GMAX1] = gmax1
                        fstate[_GMAX2] = gmax2
                        do_remove = True
                        if istate[_UNSHRINK] == 0 and gmax1 + gmax2 <= tol * 10.0:
                            istate[_UNSHRINK] = 1
                            if nact < n_whole:
                                istate[_PHASE] = _P_SHRINK_RESUME
                                return _NEED_RECON
            else:
                do_remove = True
                istate[_PHASE] = _P_TOP
            if do_remove:
                gmax1 = fstate[_GMAX1]
                gmax2 = fstate[_GMAX2]
                m = 0
                for t in range(nact):
                    k = active[t]
                    shrink = False
                    if alpha[k] >= Cb[k]:
                        shrink = (-G[k] > gmax1) if y[k] > 0 else (-G[k] > gmax2)
                    elif alpha[k] <= 0.0:
                        shrink = (G[k] > gmax2) if y[k] > 0 else (G[k] > gmax1)
                    if not shrink:
                        active[m] = k
                        m += 1
                nact = m
                istate[_NACT] = m
                if m <= compact_below:
                    istate[_PHASE] = _P_SELECT
                    return _COMPACT
            phase = _P_SELECT  # fall through to the selection of i
        if phase == _P_FINAL_RECON:
            istate[_RECHECK] = 1
        if phase == _P_FINAL_RECON or phase == _P_SELECT:
            # select i: max over I_up of -y_t G_t
            gmax = -np.inf
            gi = -1
            for t in range(nact):
                k = active[t]
                if y[k] > 0:
                    if alpha[k] < Cb[k] and -G[k] >= gmax:
                        gmax = -G[k]
                        gi = k
                else:
                    if alpha[k] > 0.0 and G[k] >= gmax:
                        gmax = G[k]
                        gi = k
            fstate[_GMAX_I] = gmax
            istate[_I] = gi
            phase = _P_NEED_I
            istate[_PHASE] = _P_NEED_I
        if phase == _P_NEED_I:
            gi = istate[_I]
            gmax = fstate[_GMAX_I]
            gj = -1
            gmax2 = -np.inf
            if gi >= 0:
                if slot_of[gi] < 0:
                    istate[_NEED] = gi
                    return _NEED_ROW
                Ki = _row(rows, slot_of, last_use, istate, gi)
                qdi = QD[gi]
                obj_min = np.inf
                for t in range(nact):
                    k = active[t]
                    if y[k] > 0:
                        if alpha[k] > 0.0:
                            gd = gmax + G[k]
                            if G[k] >= gmax2:
                                gmax2 = G[k]
                            if gd > 0.0:
                                quad = qdi + QD[k] - 2.0 * Ki[k]
                                if quad <= 0.0:
                                    quad = 1e-12
                                od = -(gd * gd) / quad
                                if od <= obj_min:
                                    gj = k
                                    obj_min = od
                    else:
                        if alpha[k] < Cb[k]:
                            gd = gmax - G[k]
                            if -G[k] >= gmax2:
                                gmax2 = -G[k]
                            if gd > 0.0:
                                quad = qdi + QD[k] - 2.0 * Ki[k]
                                if quad <= 0.0:
                                    quad = 1e-12
                                od = -(gd * gd) / quad
                                if od <= obj_min:
                                    gj = k
                                    obj_min = od
            fstate[_GAP] = gmax + gmax2
            if gmax + gmax2 < tol or gj == -1:
                if istate[_RECHECK] == 1 or nact == n_whole:
                    return _DONE
                istate[_PHASE] = _P_FINAL_RECON
                return _NEED_RECON
            if istate[_RECHECK] == 1:
                istate[_RECHECK] = 0
                istate[_COUNTER] = 1
            istate[_J] = gj
            phase = _P_NEED_J
            istate[_PHASE] = _P_NEED_J
        if phase == _P_NEED_J:
            i = istate[_I]
            j = istate[_J]
            if slot_of[j] < 0:
                istate[_NEED] = j
                return _NEED_ROW
            Ki = _row(rows, slot_of, last_use, istate, i)
            Kj = _row(rows, slot_of, last_use, istate, j)
            istate[_ITER] += 1
            Ci = Cb[i]
            Cj = Cb[j]
            old_ai = alpha[i]
            old_aj = alpha[j]
            ai = old_ai
            aj = old_aj
            quad = QD[i] + QD[j] - 2.0 * Ki[j]
            if quad <= 0.0:
                quad = 1e-12
            if y[i] != y[j]:
                delta = (-G[i] - G[j]) / quad
                diff = ai - aj
                ai += delta
                aj += delta
                if diff > 0.0:
                    if aj < 0.0:
                        aj = 0.0
                        ai = diff
                else:
                    if ai < 0.0:
                        ai = 0.0
                        aj = -diff
                if diff > Ci - Cj:
                    if ai > Ci:
                        ai = Ci
                        aj = Ci - diff
                else:
                    if aj > Cj:
                        aj = Cj
                        ai = Cj + diff
            else:
                delta = (G[i] - G[j]) / quad
                s = ai + aj
                ai -= delta
                aj += delta
                if s > Ci:
                    if ai > Ci:
                        ai = Ci
                        aj = s - Ci
                else:
                    if aj < 0.0:
                        aj = 0.0
                        ai = s
                if s > Cj:
                    if aj > Cj:
                        aj = Cj
                        ai = s - Cj
                else:
                    if ai < 0.0:
                        ai = 0.0
                        aj = s
            alpha[i] = ai
            alpha[j] = aj
            # G_k += Q_ki da_i + Q_kj da_j, Q_kl = y_k y_l K_kl
            di = (ai - old_ai) * y[i]
            dj = (aj - old_aj) * y[j]
            if nact == n:  # nothing shrunk: active is 0..n-1, a contiguous (SIMD) loop
                for k in range(n):
                    G[k] += y[k] * (Ki[k] * di + Kj[k] * dj)
            else:
                for t in range(nact):
                    k = active[t]
                    G[k] += y[k] * (Ki[k] * di + Kj[k] * dj)
            istate[_PHASE] = _P_TOP


# --------------------------------------------------------------------------
# the Python driver and the two sources of rows

def _finish(alpha, G, y, Cb, n_iter, converged, violation, p=None):
    """rho as libsvm's calculate_rho, and the objectives from the gradient.

    ``p`` is the linear term of 1/2 a'Qa + p'a (None: -1, the classifier's)."""
    yG = y * G
    up = alpha >= Cb
    low = alpha <= 0
    free = ~up & ~low
    if free.any():
        rho = float(yG[free].mean())
    else:
        ub_mask = (up & (y < 0)) | (low & (y > 0))
        lb_mask = (up & (y > 0)) | (low & (y < 0))
        ub = yG[ub_mask].min() if ub_mask.any() else np.inf
        lb = yG[lb_mask].max() if lb_mask.any() else -np.inf
        # one-sided only when a class is empty (degenerate problem): take that side
        rho = float((ub + lb) / 2) if np.isfinite(ub) and np.isfinite(lb) else \
            float(ub if np.isfinite(ub) else (lb if np.isfinite(lb) else 0.0))
    if p is not None:  # a general linear term (regression): primal by the caller
        aQa = float(alpha @ (G - p))
        dual = -float(0.5 * aQa + p @ alpha)
        return SMOResult(alpha=alpha, bias=-rho, n_iter=int(n_iter), dual_objective=dual,
                         primal_objective=float("nan"), duality_gap=float("nan"),
                         max_violation=float(violation), converged=bool(converged))
    # a'Qa = sum a_i (G_i + 1); f(x_i) = y_i (G_i + 1) - rho
    aQa = float(alpha @ (G + 1.0))
    dual = float(alpha.sum() - 0.5 * aQa)
    slack = np.maximum(0.0, -G + y * rho)
    # C_i = inf (the hard margin): the constraint is hard, its slack within SMO's
    # tolerance is not a term of the objective (inf * 0 would be NaN)
    soft = np.isfinite(Cb)
    primal = 0.5 * aQa + float(Cb[soft] @ slack[soft])
    return SMOResult(alpha=alpha, bias=-rho, n_iter=int(n_iter), dual_objective=dual,
                     primal_objective=primal, duality_gap=primal - dual,
                     max_violation=float(violation), converged=bool(converged))


def _violation(alpha, G, y, Cb):
    """m(a) - M(a): max over I_up of -yG minus min over I_low of -yG."""
    myG = -y * G
    iup = ((y > 0) & (alpha < Cb)) | ((y < 0) & (alpha > 0))
    ilow = ((y > 0) & (alpha > 0)) | ((y < 0) & (alpha < Cb))
    if not iup.any() or not ilow.any():
        return 0.0
    return float(myG[iup].max() - myG[ilow].min())


# Ctrl-C during the compiled loop arrives as KeyboardInterrupt (see _compiled.interruptible).
_run_smo_loop = interruptible(_smo_loop)


#: SMO steps between two progress reports (a return to Python per chunk: ~10 us
#: against the ~10 ms that 10,000 steps take even on small problems).
PROGRESS_CHUNK = 10_000
#: ... or at most this many seconds between two reports when the loop returns to
#: Python for kernel rows anyway (rows on demand: 10,000 steps took 110 s at n = 30,000).
REPORT_SECONDS = 1.0


#: A stored Gram matrix is compacted when a shrink leaves at most this share of the
#: current problem's variables active (adult, n = 8,000, the five Cs of a path,
#: CPU seconds: gamma = 1/14: 2.85 uncompacted, 1.96 at 0.35, 2.17 at 0.5, 2.55 at
#: 0.6; gamma = 10/14: 3.11, 2.87, 2.98, 3.16) ...
COMPACT_SHARE = 0.35
#: ... and the current problem has at least this many variables (below, its rows are
#: in the processor's caches anyway). The copy (at most 0.35^2 = 12 % of the Gram
#: matrix's bytes, its parent level's too while nested) must fit beside the Gram
#: matrix (at most half the budget), checked once per solve.
COMPACT_MIN = 512


@njit(cache=True, nogil=True, error_model="numpy")
def _square_block(K, slots, idx):
    """K[np.ix_(slots, idx)]: the rows of the variables ``idx`` (held in the rows
    ``slots`` of K) at the columns ``idx`` (one pass, on the calling thread: about
    twice numpy's fancy-indexing speed)."""
    m = idx.shape[0]
    out = np.empty((m, m), dtype=K.dtype)
    for a in range(m):
        row = K[slots[a]]
        o = out[a]
        for b in range(m):
            o[b] = row[idx[b]]
    return out


class _Compacted:
    """The active variables of a problem on a stored Gram matrix, copied together.

    libsvm keeps the active variables first (it swaps indices) so that its cached
    rows are short and contiguous; with every row of a stored n x n matrix present,
    a shrunk problem would instead read its m active entries of rows i and j scattered
    over the whole row (at m = n / 4 nearly every cache line of both rows). This is
    the same loop on K[active][:, active] (one m x m copy) and the variables'
    alpha, G, y, C and diagonal: the same steps in the same order (the active set is
    kept in increasing order), on rows m / n as long.
    """

    def __init__(self, idx, K, y, Cb, QD, alpha, G):
        self.idx = idx  # positions in the whole problem, increasing
        self.rows = K  # K[idx][:, idx], m x m
        m = idx.size
        self.slot_of = np.arange(m, dtype=np.int64)
        self.last_use = np.zeros(m, dtype=np.int64)
        self.y, self.Cb, self.QD = y[idx], Cb[idx], QD[idx]
        self.alpha, self.G = alpha[idx], G[idx]
        self.active = np.arange(m, dtype=np.int64)

    @classmethod
    def of(cls, level, source, active, y, Cb, QD, alpha, G):
        """The compacted problem of the active variables ``active`` (positions in
        ``level``, the current compacted problem, or in the whole problem when
        ``level`` is None: then their rows are read from ``source``, a source of
        rows whose every row is present, in the rows ``source.slot_of`` says);
        y, Cb, QD, alpha, G: the whole problem's arrays, into which ``level`` has
        been written back."""
        local = np.array(active, dtype=np.int64)
        if level is None:
            block = _square_block(source.rows, np.ascontiguousarray(source.slot_of[local]),
                                  local)
            return cls(local, block, y, Cb, QD, alpha, G)
        return cls(level.idx[local], _square_block(level.rows, local, local), y, Cb, QD,
                   alpha, G)

    def write_back(self, alpha, G, active, istate):
        """alpha and G of the variables into the whole problem's arrays, and its active
        set (positions in the whole problem) into ``active[:istate[_NACT]]``."""
        alpha[self.idx] = self.alpha
        G[self.idx] = self.G
        nact = int(istate[_NACT])
        active[:nact] = self.idx[self.active[:nact]]


def _drive(source, y, Cb, QD, tol, max_iter, shrinking, p=None, alpha0=None, callback=None,
           gradient0=None):
    """Run the compiled loop to the end, serving its requests for rows.

    ``alpha0``: a feasible starting point (default 0; the one-class SVM starts
    elsewhere), its gradient Q alpha0 + p computed here unless given as
    ``gradient0``. ``callback(n_steps, gap)``,
    if given, is called every :data:`PROGRESS_CHUNK` steps: the loop stops at
    the chunk's end in its top phase and resumes exactly there, so the steps
    taken are those of one uninterrupted run. A stored Gram matrix (a source with
    ``compacts`` true) is compacted to the active variables when shrinking leaves
    few of them (:class:`_Compacted`); the gradient of the others is rebuilt on the
    whole problem as without compaction.
    """
    n = y.shape[0]
    alpha = np.zeros(n) if alpha0 is None else np.array(alpha0, dtype=np.float64)
    G = -np.ones(n) if p is None else np.array(p, dtype=np.float64)
    if gradient0 is not None:
        G = np.array(gradient0, dtype=np.float64)
    elif alpha0 is not None:
        start = np.flatnonzero(alpha > 0)
        if start.size:
            G += y * source.dot(np.arange(n), start, (alpha * y)[start])
    active = np.arange(n, dtype=np.int64)
    istate = np.zeros(10, dtype=np.int64)
    istate[_COUNTER] = min(n, 1000) + 1  # libsvm: counter = min(l,1000)+1
    istate[_NACT] = n
    fstate = np.zeros(4)
    max_iter = default_max_iter(n) if max_iter is None else int(max_iter)
    top = COMPACT_SHARE * n  # the largest copy (its parent level's too while nested)
    compacts = (bool(shrinking) and getattr(source, "compacts", False)
                and fits(8.0 * top * top * (1.0 + COMPACT_SHARE ** 2), share=0.5))
    level = None  # the compacted problem being solved, if any
    reported = 0
    last_report = time.perf_counter()
    while True:
        stop = max_iter if callback is None else min(max_iter, reported + PROGRESS_CHUNK)
        now = source if level is None else level
        arrays = ((y, Cb, QD, alpha, G, active) if level is None else
                  (level.y, level.Cb, level.QD, level.alpha, level.G, level.active))
        m = arrays[0].shape[0]
        below = int(COMPACT_SHARE * m) if compacts and m >= COMPACT_MIN else 0
        status = _run_smo_loop(now.rows, now.slot_of, now.last_use, *arrays, istate, fstate,
                               float(tol), stop, bool(shrinking), n, below)
        # Progress: at the end of a chunk of steps, or, when kernel rows are computed
        # on demand (large n: a chunk can take minutes), once REPORT_SECONDS have passed.
        due = callback is not None and (
            status == _DONE or istate[_ITER] - reported >= PROGRESS_CHUNK
            or status == _MAX_ITER
            or (istate[_ITER] > reported
                and time.perf_counter() - last_report >= REPORT_SECONDS))
        if due:
            callback(int(istate[_ITER] - reported), float(fstate[_GAP]))
            reported = int(istate[_ITER])
            last_report = time.perf_counter()
        if status == _MAX_ITER and stop < max_iter:
            continue  # the end of a progress chunk, not of the run
        if status == _COMPACT:
            nact = int(istate[_NACT])
            if level is not None:  # the variables it shrank keep their alpha
                level.write_back(alpha, G, active, istate)
            else:  # rows on demand: the active variables' rows, complete
                getattr(source, "ensure", lambda rows: None)(active[:nact])
            level = _Compacted.of(level, source, arrays[5][:nact], y, Cb, QD, alpha, G)
            continue
        if level is not None:  # back to the whole problem (gradient rebuild, or the end)
            level.write_back(alpha, G, active, istate)
            level = None
        if status == _NEED_ROW:
            source.fetch(int(istate[_NEED]), alpha, G, y, Cb, active[:istate[_NACT]], istate)
        elif status == _NEED_RECON or (status == _MAX_ITER and istate[_NACT] < n):
            inactive = np.setdiff1d(np.arange(n), active[:istate[_NACT]], assume_unique=True)
            if inactive.size:
                sv = np.flatnonzero(alpha > 0)
                G[inactive] = ((-1.0 if p is None else p[inactive])
                               + y[inactive] * source.dot(inactive, sv, (alpha * y)[sv]))
            active[:] = np.arange(n)
            istate[_NACT] = n
            if status == _MAX_ITER:
                break
        else:
            break
    converged = status == _DONE
    return _finish(alpha, G, y, Cb, istate[_ITER], converged, _violation(alpha, G, y, Cb), p), G


@njit(cache=True, nogil=True, error_model="numpy")
def _symmetric_dot(K, rows, cols, v):
    """(K[rows][:, cols]) @ v for a symmetric K, read as sum_c v_c K[cols[c], rows]:
    only the rows of ``cols`` (the support vectors) are read, each in order."""
    out = np.zeros(rows.shape[0])
    for c in range(cols.shape[0]):
        Kc = K[cols[c]]
        vc = v[c]
        for r in range(rows.shape[0]):
            out[r] += Kc[rows[r]] * vc
    return out


@njit(cache=True, nogil=True, error_model="numpy")
def _symmetric_dot_all(K, cols, v):
    """K[:, cols] @ v for a symmetric K, as sum_c v_c K[cols[c]]: the rows of ``cols``
    only, each streamed once (one thread: measured 2x faster than the 2-thread
    matrix-vector product with all n x n entries at n_SV = 0.39 n)."""
    n = K.shape[1]
    out = np.zeros(n)
    for c in range(cols.shape[0]):
        Kc = K[cols[c]]
        vc = v[c]
        for k in range(n):
            out[k] += Kc[k] * vc
    return out


class _GramRows:
    """Every row present: the Gram matrix itself."""

    compacts = True  # a shrunk problem's rows are copied together (_Compacted)

    def __init__(self, K):
        self.rows = K
        self.slot_of = np.arange(len(K), dtype=np.int64)
        self.last_use = np.zeros(len(K), dtype=np.int64)

    def fetch(self, *args):  # pragma: no cover - never called: every row is present
        raise AssertionError("a Gram matrix has every row")

    def dot(self, rows, cols, v):
        # The gradient rebuild G[rows] from the support vectors ``cols``: by symmetry
        # from their rows alone (n_SV x n entries read, not n x n; nor a copy of rows).
        return _stored_dot(self.rows, rows, cols, v)


def _stored_dot(K, rows, slots, v):
    """K[rows][:, cols] @ v of a symmetric Gram matrix whose row c is held in the row
    ``slots[c]`` of ``K`` (``slots`` = ``cols`` for the matrix itself), read by symmetry
    from those rows alone."""
    slots = np.ascontiguousarray(slots, dtype=np.int64)
    v = np.ascontiguousarray(v, dtype=np.float64)
    if 4 * rows.size > K.shape[1]:  # most rows: stream the SV rows
        return _symmetric_dot_all(K, slots, v)[rows]
    return _symmetric_dot(K, np.ascontiguousarray(rows, dtype=np.int64), slots, v)


class _RowCache:
    """An LRU cache of kernel rows computed in batches through ``KernelRows.rows``."""

    def __init__(self, kernel_rows, n_slots, batch):
        n = kernel_rows.shape[0]
        self.kernel_rows = kernel_rows
        # pages mapped only for the slots filled, each in one call (RowPages)
        self.rows = fresh_empty((n_slots, n), populate=False)
        self.pages = RowPages(self.rows)
        self.slot_of = np.full(n, -1, dtype=np.int64)
        self.row_of = np.full(n_slots, -1, dtype=np.int64)
        self.last_use = np.full(n_slots, -1, dtype=np.int64)  # never used: evicted first
        self.batch = batch
        self.n_computed = 0

    def fetch(self, need, alpha, G, y, Cb, active, istate):
        # Prefetch the rows of the most violating uncached active variables: the
        # next selections of i (max -yG over I_up) and j (large yG over I_low), only
        # into empty slots: a guess never evicts a row computed earlier (at n = 4,000
        # with 1,000 slots, evicting for guesses computed 50,197 rows in batches of
        # 64 where 1,799 were asked for).
        want = [need]
        extra = min(self.batch - 1, int(np.count_nonzero(self.row_of < 0)) - 1)
        if extra > 0:
            cand = active[self.slot_of[active] < 0]
            cand = cand[cand != need]
            if cand.size:
                myG = -y[cand] * G[cand]
                a, c, yc = alpha[cand], Cb[cand], y[cand]
                up = np.where(((yc > 0) & (a < c)) | ((yc < 0) & (a > 0)), myG, -np.inf)
                lo = np.where(((yc > 0) & (a > 0)) | ((yc < 0) & (a < c)), -myG, -np.inf)
                score = np.maximum(up, lo)
                k = min(extra, cand.size)
                top = np.argpartition(-score, k - 1)[:k] if k < cand.size else np.arange(cand.size)
                top = top[np.isfinite(score[top])]
                want.extend(cand[top].tolist())
        self.store(np.asarray(want, dtype=np.int64), istate)

    def store(self, want, istate):
        """Compute the rows ``want`` into the least recently used slots (never row i's)."""
        slots = self.free_slots(len(want), istate)
        self.pages.map_rows(slots[self.row_of[slots] < 0])  # slots never filled before
        self.rows[slots] = self.kernel_rows.rows(want)
        self.took(slots, want, istate)

    def free_slots(self, count, istate):
        """The ``count`` least recently used slots (never row i's), their rows forgotten."""
        age = self.last_use.copy()
        if self.slot_of[istate[_I]] >= 0:  # row i is needed again with row j: keep it
            age[self.slot_of[istate[_I]]] = np.iinfo(np.int64).max
        slots = np.argpartition(age, count - 1)[:count]
        old = self.row_of[slots]
        self.forget(old[old >= 0])
        return slots

    def forget(self, rows):
        """Mark ``rows`` as no longer cached."""
        self.slot_of[rows] = -1

    def took(self, slots, rows, istate):
        """Record that ``slots`` now hold ``rows``, just computed."""
        self.n_computed += len(rows)
        self.row_of[slots] = rows
        self.slot_of[rows] = slots
        # the fresh rows count as just used, so the next fetch evicts older ones
        self.last_use[slots] = istate[_CLOCK]
        istate[_CLOCK] += 1

    def dot(self, rows, cols, v):
        """K[rows][:, cols] @ v: the gradient rebuild from the support vectors ``cols``.

        The cached rows of ``cols`` give their part by symmetry (K[c, rows], no
        kernel value computed: the support vectors' rows are the ones SMO used
        last); only the uncached ones are computed, in (rows, cols) blocks."""
        out = np.zeros(rows.size)
        if not cols.size:
            return out
        rows = np.ascontiguousarray(rows, dtype=np.int64)
        slots = self.slot_of[cols]
        cached = slots >= 0
        if cached.any():
            out += _symmetric_dot(self.rows, rows, np.ascontiguousarray(slots[cached]),
                                  np.ascontiguousarray(v[cached], dtype=np.float64))
        cols, v = cols[~cached], v[~cached]
        if not cols.size:
            return out
        # (rows, cols) float64 blocks within the budget's block share (the kernel's
        # block and its temporaries: 3 block-sized arrays), as every row-block loop
        step = rows_per_block(cols.size, n_temporaries=3)
        for r0, r1 in row_blocks(rows.size, step):
            out[r0:r1] += self.kernel_rows.rows(rows[r0:r1], cols) @ v
        return out


class LazyGram:
    """A Gram matrix filled row by row as SMO first asks for each row (rows on demand
    with a slot for every row, stored in the order first asked: row i lives in the
    row ``slot_of[i]`` of an n x n buffer).

    The buffer's rows after the last one written are never touched, so a fresh
    buffer gets pages only for the rows SMO uses (about 40% of them on adult
    10k), all at its start, and a computed row is never evicted or computed
    twice. Rows stay valid across the binary problems of one fit on the same
    (sorted) samples (one-vs-rest). With ``map_ahead`` (the planner's
    :func:`~kernelkit.planning.machines.rows_ahead_choice`), while
    :func:`smo_lazy_gram` runs, a second thread maps the pages of the next free
    rows of new memory before SMO asks for them
    (:class:`~kernelkit.solvers.buffers.RowsAhead`); otherwise each row's pages
    are mapped in one call just before it is written
    (:class:`~kernelkit.solvers.buffers.RowPages`).
    The values, and so the steps, are the same either way.

    Parameters
    ----------
    kernel : Kernel
    X : array-like of shape (n, n_features)
        Validated inputs of ``kernel``.
    buffer : ndarray of shape (n, n), float64, optional
        C-contiguous memory to fill (e.g. from :mod:`kernelkit.solvers.buffers`);
        default new memory (:func:`~kernelkit.solvers.buffers.fresh_empty`).
    rbf_gamma : float, optional
        When ``kernel`` is the isotropic RBF kernel, its gamma: rows then come
        from one compiled pass each (:mod:`._rbf_rows`); otherwise (default)
        from :meth:`KernelRows.rows`.
    map_ahead : bool or Choice, default=False
        Map the pages of new memory on a second thread ahead of the rows
        (True, or the planner's :class:`~kernelkit.planning.Choice` with value
        True); ignored on memory whose pages are mapped already (a warm buffer).

    Attributes
    ----------
    n_computed : int
        Rows computed so far (the rows ``0 .. n_computed - 1`` of the buffer).
    slot_of : ndarray of shape (n,), int64
        The buffer's row holding row i, -1 while not computed.
    engine : str
        ``"rbf rows"`` (one compiled pass per row, :mod:`._rbf_rows`) or
        ``"kernel rows"`` (:meth:`KernelRows.rows`, any kernel).
    """

    def __init__(self, kernel, X, buffer=None, rbf_gamma=None, map_ahead=False):
        if isinstance(map_ahead, Choice):
            map_ahead = map_ahead.value
        if not isinstance(map_ahead, (bool, np.bool_)):
            raise InvalidParameterError(
                f"LazyGram: map_ahead must be True, False or the planner's Choice, got "
                f"{map_ahead!r}; for the planner's decision pass "
                "map_ahead=kernelkit.planning.machines.rows_ahead_choice("
                "kernelkit.solvers.buffers.can_map_ahead())")
        self.kernel_rows = KernelRows(kernel, X)
        n = self.kernel_rows.shape[0]
        self.rows = fresh_empty((n, n), populate=False) if buffer is None else buffer
        self.pages = RowPages(self.rows)  # fresh memory: each row's pages in one call
        self.map_ahead = bool(map_ahead)
        self._ahead = None  # the thread mapping rows ahead, while smo_lazy_gram runs
        self.slot_of = np.full(n, -1, dtype=np.int64)
        self.last_use = np.zeros(n, dtype=np.int64)
        self.n_computed = 0
        self._rbf = (None if rbf_gamma is None else
                     rbf_row_engine(self.kernel_rows, float(rbf_gamma)))
        self.engine = "kernel rows" if self._rbf is None else "rbf rows"
        self.QD = np.ascontiguousarray(self.kernel_rows.diag(), dtype=np.float64)

    #: SMO compacts a shrunk problem's rows (:class:`_Compacted`), each row complete
    #: after :meth:`ensure`, read from the buffer's row ``slot_of[i]``.
    compacts = True

    @contextmanager
    def mapping_ahead(self):
        """``with lazy.mapping_ahead():`` the pages of the next free rows mapped on a
        second thread (when ``map_ahead`` and the buffer is new memory); the thread
        is stopped and joined on leaving, also on an error."""
        if not (self.map_ahead and self.pages.active) or self._ahead is not None:
            yield
            return
        with RowsAhead(self.rows, first_row=self.n_computed) as ahead:
            self._ahead = ahead
            try:
                yield
            finally:
                self._ahead = None

    def ensure(self, rows):
        """Compute the rows among ``rows`` not computed yet (before a compaction)."""
        for r in np.asarray(rows)[self.slot_of[rows] < 0]:
            self.fetch(int(r))

    def fetch(self, need, *state):
        """Compute row ``need`` into the next free row of the buffer (SMO's request;
        no guesses)."""
        slot = self.n_computed
        if self._ahead is None or not self._ahead.writing(slot):
            self.pages.map(slot)
        if self._rbf is not None:
            self._rbf.row_into(need, self.rows[slot])
        else:
            self.rows[slot] = self.kernel_rows.rows([need])[0]
        self.slot_of[need] = slot
        self.n_computed += 1

    def dot(self, rows, cols, v):
        """K[rows][:, cols] @ v, the gradient rebuild from the support vectors ``cols``:
        their rows (computed first if SMO never asked for them) read by symmetry,
        as from a whole Gram matrix (:class:`_GramRows`, the same sums)."""
        for c in cols[self.slot_of[cols] < 0]:
            self.fetch(int(c))
        return _stored_dot(self.rows, rows, self.slot_of[cols], v)


def smo_lazy_gram(lazy, y, C, *, tol=1e-3, max_iter=None, shrinking=True, callback=None):
    """Solve the SVM dual by SMO on a :class:`LazyGram` (rows computed when first used).

    Parameters
    ----------
    lazy : LazyGram
        On the problem's samples; rows already computed are reused.
    y, C, tol, max_iter, shrinking, callback
        As :func:`smo_gram`.

    Returns
    -------
    SMOResult
        The same steps as :func:`smo_gram` on the full Gram matrix.
    """
    y, Cb = _labels_and_bounds(y, C)
    with lazy.mapping_ahead():
        return _drive(lazy, y, Cb, lazy.QD, tol, max_iter, shrinking, callback=callback)[0]


def _labels_and_bounds(y, C):
    y = np.ascontiguousarray(y, dtype=np.float64)
    Cb = np.ascontiguousarray(np.broadcast_to(np.asarray(C, dtype=np.float64), y.shape))
    return y, Cb


def smo_gram(K, y, C, *, tol=1e-3, max_iter=None, shrinking=True, callback=None,
             alpha0=None):
    """Solve the SVM dual by SMO on a stored Gram matrix.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Gram matrix, float64, C-contiguous (not modified).
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    C : float or ndarray of shape (n,)
        Upper bounds C_i > 0 (C times class and sample weights).
    tol : float, default=1e-3
        Stop when the maximal violation m(a) - M(a) < tol (libsvm's eps).
    max_iter : int, optional
        Cap on the number of steps (default libsvm's max(10^7, 100 n)).
    shrinking : bool, default=True
    callback : callable, optional
        ``callback(n_steps, gap)`` every :data:`PROGRESS_CHUNK` steps and at the
        end: the steps since the last call and the current m(a) - M(a) (for a
        progress display; the steps taken are the same with or without it).
    alpha0 : ndarray of shape (n,), optional
        Warm start: a feasible point (0 <= alpha0_i <= C_i, sum_i alpha0_i y_i = 0),
        e.g. :func:`seed_alpha` of the solution at a neighbouring C. The gradient
        is rebuilt from it once (one product with K); the optimum reached is the
        cold start's, to ``tol``.

    Returns
    -------
    SMOResult
    """
    K = np.ascontiguousarray(K, dtype=np.float64)
    y, Cb = _labels_and_bounds(y, C)
    return _drive(_GramRows(K), y, Cb, np.ascontiguousarray(np.diag(K)), tol, max_iter,
                  shrinking, alpha0=alpha0, callback=callback)[0]


def seed_alpha(alpha, C_old, C_new):
    """A warm start for the SVM dual at bounds ``C_new`` from a solution at ``C_old``.

    DeCoste & Wagstaff's "alpha seeding" along a path of C: alpha scaled by
    C_new / C_old keeps every variable at its bound where it was (0 or C_i, the
    usual state of most of them) and keeps sum_i alpha_i y_i = 0, so the point is
    feasible; it is clipped into [0, C_new_i] against round-off. The SMO that
    follows only moves the free variables and those whose side of the margin
    changed.

    Parameters
    ----------
    alpha : ndarray of shape (n,)
        Solution at ``C_old`` (the 2n variables (a, a*) for epsilon-SVR).
    C_old, C_new : float or ndarray of shape (n,)
        The bounds of the two problems (> 0); per-sample bounds must be the two
        penalties times the same weights, so that their ratio is one number.

    Returns
    -------
    ndarray of shape (n,)

    References
    ----------
    DeCoste, D. and Wagstaff, K. (2000). Alpha seeding for support vector
    machines. Proceedings of KDD 2000, 345-349.
    """
    alpha = np.asarray(alpha, dtype=np.float64)
    C_old = np.broadcast_to(np.asarray(C_old, dtype=np.float64), alpha.shape)
    C_new = np.broadcast_to(np.asarray(C_new, dtype=np.float64), alpha.shape)
    return np.clip(alpha * (C_new / C_old), 0.0, C_new)


def smo_gram_path(K, y, Cs, weights=1.0, *, tol=1e-3, max_iter=None, shrinking=True):
    """Solve the SVM dual by SMO on one stored Gram matrix for each C of a path.

    Each solve after the first starts from the previous solution scaled by
    C_new / C_old (:func:`seed_alpha`), and its gradient is the previous one
    scaled the same way -- Q (r alpha) - e = r (G + e) - e -- instead of a product
    with K's support-vector rows.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Gram matrix, float64, C-contiguous (not modified).
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    Cs : sequence of float
        The values of C, in the order solved (usually increasing).
    weights : float or ndarray of shape (n,), default=1.0
        The bounds are C_i = C * weights_i (class and sample weights, > 0).
    tol, max_iter, shrinking
        As :func:`smo_gram`.

    Yields
    ------
    SMOResult
        One per C, in order; each equals :func:`smo_gram` started from
        :func:`seed_alpha` of the previous one, to ``tol``.

    References
    ----------
    DeCoste, D. and Wagstaff, K. (2000). Alpha seeding for support vector
    machines. Proceedings of KDD 2000, 345-349.
    """
    K = np.ascontiguousarray(K, dtype=np.float64)
    Cs = np.asarray(list(Cs), dtype=np.float64)
    if Cs.ndim != 1 or not np.all(np.isfinite(Cs) & (Cs > 0)):
        raise ValueError(f"smo_gram_path: Cs must be finite positive numbers, got {Cs!r}")
    weights = np.broadcast_to(np.asarray(weights, dtype=np.float64), (K.shape[0],))
    if not np.all(np.isfinite(weights) & (weights > 0)):
        raise ValueError("smo_gram_path: weights must be finite and > 0 (drop the samples "
                         "of weight 0 before the solve)")
    if not np.all(np.abs(np.asarray(y, dtype=np.float64)) == 1.0):
        raise ValueError("smo_gram_path: y must hold the labels -1 and +1")
    source, QD = _GramRows(K), np.ascontiguousarray(np.diag(K))
    previous = None
    for C in Cs:
        y_, Cb = _labels_and_bounds(y, float(C) * weights)
        if previous is None:
            res, G = _drive(source, y_, Cb, QD, tol, max_iter, shrinking)
        else:
            ratio = float(C) / previous
            res, G = _drive(source, y_, Cb, QD, tol, max_iter, shrinking,
                            alpha0=np.clip(res.alpha * ratio, 0.0, Cb),
                            gradient0=ratio * (G + 1.0) - 1.0)
        previous = float(C)
        yield res


def smo_kernel(kernel, X, y, C, *, tol=1e-3, max_iter=None, shrinking=True, cache_bytes=None,
               batch=64, callback=None, alpha0=None):
    """Solve the SVM dual by SMO with kernel rows computed on demand and cached (LRU).

    Parameters
    ----------
    kernel : Kernel
    X : array-like of shape (n, n_features)
        Validated inputs of ``kernel``.
    y, C, tol, max_iter, shrinking, callback, alpha0
        As :func:`smo_gram`.
    cache_bytes : int, optional
        Size of the row cache, decided by the caller's plan (the estimators pass
        :func:`kernelkit.planning.row_cache_bytes`); default
        :data:`~kernelkit._budget.ROW_CACHE_SHARE` of the memory budget, the
        same value. At least ``batch + 2`` rows are kept.
    batch : int, default=64
        Rows computed per cache miss (the missing row and the most violating
        uncached ones), in one call of the kernel (one matrix product).

    Returns
    -------
    SMOResult
    """
    y, Cb = _labels_and_bounds(y, C)
    source, QD = row_source(KernelRows(kernel, X), cache_bytes, batch)
    return _drive(source, y, Cb, QD, tol, max_iter, shrinking, alpha0=alpha0,
                  callback=callback)[0]


def row_source(kernel_rows, cache_bytes=None, batch=64, cache_class=None):
    """An LRU row cache over ``kernel_rows`` of ``cache_bytes`` (a plain value from the
    caller's plan; default :data:`~kernelkit._budget.ROW_CACHE_SHARE` of the
    budget), at least ``batch + 2`` rows, and the
    diagonal QD that SMO's working-set selection needs. ``cache_class``: a
    subclass of the cache (epsilon-SVR's, whose rows i and i + n are one row)."""
    n = kernel_rows.shape[0]
    if cache_bytes is None:
        cache_bytes = int(budget() * ROW_CACHE_SHARE)
    n_slots = int(min(n, max(batch + 2, cache_bytes // (8 * n))))
    batch = max(1, min(batch, n_slots - 2)) if n_slots > 2 else 1
    QD = np.ascontiguousarray(kernel_rows.diag(), dtype=np.float64)
    return (cache_class or _RowCache)(kernel_rows, n_slots, batch), QD
