"""The planning room: every automatic choice that depends on the problem's size.

A fit validates its input, asks the planner, then executes what the plan says.
The planner is pure arithmetic: flop and byte counts of every candidate
strategy turned into predicted seconds with this machine's rates, and each
size- or budget-dependent decision (store a matrix or recompute it, Newton or
SGD, how many centers fit) recorded as a :class:`Choice`, so that the
estimator's ``plan_`` shows it and ``Plan.explain()`` prints it.

Modules, by subject:

- ``choices``: :class:`Choice`, :class:`Candidate`, :class:`Plan` (defined on the
  ground floor, :mod:`kernelkit._choices`, through which solvers and the Gram
  operator report what they find without importing this room);
- ``costs``: the rates in force, the budget, a fit's fixed overhead;
- ``ridge``: :func:`plan_ridge` (dual, primal or Falkon), Falkon's centers and
  iterations;
- ``sgd``: :func:`plan_sgd` (the four SGD strategies; ``plan`` is its old name),
  :func:`plan_machine_sgd` (a kernel machine's SGD fit: strategy, random features);
- ``storage``: :func:`decide_store`, :func:`falkon_store_choice`,
  :func:`operator_store_choice` (a ``GramOperator``'s ``cache``),
  :func:`row_cache_bytes`, :func:`row_cache_choice`;
- ``kernel_ridge``: :func:`plan_kernel_ridge`, every decision of a
  :class:`~kernelkit.models.KernelRidge` fit in one call (strategy, centers,
  precision, does it fit, K_nM kept);
- ``dask``: :func:`plan_dask_ridge`, :func:`plan_dask_kmeans` (the Dask
  estimators' plans: centers, Falkon or features, K_nM kept on the workers,
  from the cluster's memory passed in as a number);
- ``machines``: :func:`choose_machine_solver`, :func:`choose_newton_inner`,
  :func:`choose_logistic_solver`, :func:`plan_machine_dual` (a Newton or L-BFGS
  fit: Gram matrix stored, Newton's steps), the hard margin and tube;
- ``fold_search``: :func:`plan_fold_solves` (a k-fold ridge search: which alphas
  of a training fold share a float32 factor preconditioning CG, and which get a
  float64 factor each, from predicted factor and iteration costs);
- ``searches``: the *CV searches' fold threads (:func:`fold_workers`) and records
  (criterion, kernel blocks, fold threads,
  warm starts, factorisation, centers), each built from plain values;
- ``decomposition``: :func:`plan_kernel_pca` (eigen-solver, Nystroem centers);
- ``clustering``: :func:`plan_kernel_kmeans`, the distance methods' space, the
  agglomerative tree's algorithm, DBSCAN's stored neighbourhoods.

The room imports only the budget arithmetic (``kernelkit._budget``, ``_units``),
the records (``kernelkit._choices``) and the rates (``kernelkit.config``); no
room below it (the Gram operator, solvers, tuning, kernels, features, linalg)
imports it: they receive its decisions as plain values or as its ``Choice``.
"""

from .choices import Candidate, Choice, Plan
from .costs import FIT_OVERHEAD_S, RATES
from .clustering import plan_kernel_kmeans, tree_algorithm_choice
from .dask import DaskRidgePlan, plan_dask_kmeans, plan_dask_ridge
from .decomposition import plan_kernel_pca
from .fold_search import FoldSolvePlan, plan_fold_solves
from .kernel_ridge import MIXED_MIN_N, RidgeFitPlan, plan_kernel_ridge, precision_choice
from .machines import (LOGISTIC_LBFGS_MAX_N, LOGISTIC_NEWTON_MIN_C, NEWTON_DIRECT_MAX_N,
                       NEWTON_MAX_N, choose_logistic_solver, choose_machine_solver,
                       choose_newton_inner, machine_solver_choice, plan_machine_dual)
from .ridge import (FALKON_ITERATIONS, FALKON_MIN_N, MIN_AUTO_CENTERS, falkon_centers,
                    falkon_iterations, plan_ridge)
from .sgd import STRATEGIES, plan, plan_machine_sgd, plan_sgd
from .storage import (decide_store, falkon_store_choice, operator_store_choice, row_cache_bytes,
                      row_cache_choice)

__all__ = ["Candidate", "Choice", "Plan", "plan_sgd", "plan", "plan_ridge", "decide_store",
           "choose_machine_solver", "falkon_store_choice", "MIN_AUTO_CENTERS",
           "falkon_iterations", "row_cache_bytes", "row_cache_choice", "falkon_centers",
           "RATES", "STRATEGIES", "NEWTON_MAX_N", "NEWTON_DIRECT_MAX_N", "choose_newton_inner",
           "LOGISTIC_LBFGS_MAX_N", "LOGISTIC_NEWTON_MIN_C", "choose_logistic_solver",
           "FIT_OVERHEAD_S", "FALKON_ITERATIONS", "FALKON_MIN_N", "plan_kernel_ridge",
           "RidgeFitPlan", "precision_choice", "MIXED_MIN_N", "plan_dask_ridge",
           "plan_dask_kmeans", "DaskRidgePlan", "plan_kernel_pca", "plan_kernel_kmeans",
           "tree_algorithm_choice", "machine_solver_choice", "plan_machine_dual",
           "plan_machine_sgd", "plan_fold_solves", "FoldSolvePlan", "operator_store_choice"]
