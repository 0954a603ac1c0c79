"""Every automatic decision is made in the planning room (issue 22).

A :class:`~kernelkit.planning.Choice` records a decision of a fit. Decisions
are made in ``kernelkit/planning/`` before the numerics run; the estimators
execute with plain values. Outside ``planning/`` a ``Choice(...)`` may only be
built as a *report* of what a solver found in the data (a preconditioner's
rank, merged rows, the grid's edge), listed below with the reason.

The sources are read with :mod:`ast` (nothing of kernelkit is imported): every
call whose callee is named ``Choice`` is found, with the function that makes it,
and every import of the rooms below the planner (the Gram operator, solvers,
tuning, linalg, kernels, features, the Dask operators), which must not import
``kernelkit.planning``: ``Choice`` lives on the ground floor (``kernelkit._choices``).
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "kernelkit"

#: Reports: ``Choice``s that say what a solver or a fit found in the data, which
#: no plan made before the numerics could know. (module, function) -> why.
REPORTS = {
    ("solvers/falkon.py", "falkon"):
        "CG handed over to the direct solve: its rate, measured during the iterations",
    ("solvers/falkon.py", "_solve_choice"):
        "CG or the direct solve, from the rank (and form) the preconditioner's "
        "factorisation found in K_MM",
    ("solvers/falkon.py", "_factors"):
        "the preconditioner's form (Cholesky or eigen) from the rank the factorisation found",
    ("solvers/falkon_rows.py", "merge_rows_choice"):
        "the repeated rows found in X",
    ("solvers/falkon_rows.py", "draw_centers"):
        "the distinct centers found among the rows drawn",
    ("solvers/falkon_rows.py", "distinct_row_centers"):
        "the centers drawn among the distinct rows found",
    ("solvers/distances.py", "neighbour_order_choice"):
        "which path the k-NN solver takes for this kernel's structure (its profile)",
    ("solvers/distances.py", "candidate_precision_choice"):
        "the solver's candidate precision from the features' sizes and the bound it proves",
    ("gram.py", "_product_choice"):
        "the Gram products' route the kernel found for these inputs (a grid of integers)",
    ("tuning/grid.py", "warn_if_on_edge"):
        "whether the value a search chose lies on its grid's edge",
    ("models/_base.py", "feature_scale_choice"):
        "the input columns' spread found in X (a warning, not a decision)",
    ("models/learned_kernel_ridge.py", "LearnedKernelRidge.fit"):
        "the learnt parameters and the objective reached",
    ("models/learned_kernel_ridge.py", "LearnedKernelRidge._fit_ridge"):
        "the final model's solver, as the nested KernelRidge planned it",
    ("dask/_runtime.py", "check_worker_room"):
        "the rows per chunk of X against the room the cluster's workers answered",
}

#: Sites in modules other work is changing now (issue 22 continues), without the
#: staleness check: decisions still to be moved into planning/, then removed from
#: here, and reports still being written (then moved to REPORTS).
PENDING = {}


def _choice_sites():
    """{(module, qualified function): [line, ...]} of every ``Choice(...)`` call outside
    planning/."""
    sites = {}
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel.startswith("planning/"):
            continue

        def visit(node, scope):
            for child in ast.iter_child_nodes(node):
                inner = scope
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    inner = scope + [child.name]
                if isinstance(child, ast.Call):
                    f = child.func
                    name = f.id if isinstance(f, ast.Name) else getattr(f, "attr", None)
                    if name == "Choice":
                        key = (rel, ".".join(scope) or "<module>")
                        sites.setdefault(key, []).append(child.lineno)
                visit(child, inner)

        visit(ast.parse(path.read_text(encoding="utf-8"), str(path)), [])
    return sites


def test_the_scan_finds_choices():
    # the scanner must see a known report site, else the tests below prove nothing
    assert ("solvers/falkon_rows.py", "merge_rows_choice") in _choice_sites()


def test_no_choice_is_made_outside_planning():
    stray = {site: lines for site, lines in _choice_sites().items()
             if site not in REPORTS and site not in PENDING}
    assert not stray, (
        "Choice(...) built outside kernelkit/planning/: "
        + "; ".join(f"{m}:{lines} in {fn}" for (m, fn), lines in sorted(stray.items()))
        + ". Make the decision in a planning function (the estimator calls it once after "
        "validation and executes with plain values); if it reports what a solver found in "
        "the data, add it to REPORTS in tests/test_planning_room.py with the reason.")


def test_reports_listed_still_exist():
    gone = set(REPORTS) - set(_choice_sites())
    assert not gone, f"REPORTS lists sites that build no Choice any more (remove them): {gone}"


def _imports_of(source, package):
    """Every kernelkit module ``source`` imports (module level and inside functions),
    as absolute dotted names, for a module of ``package`` (a list of names):
    ``from . import x`` and ``from kernelkit import x`` give ``package.x``."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found.add(module)
            found.update(f"{module}.{a.name}" for a in node.names)  # from x import module
    return {m for m in found if m == "kernelkit" or m.startswith("kernelkit.")}


def _kernelkit_imports(path):
    package = ["kernelkit", *path.relative_to(SRC).with_suffix("").parts][:-1]
    return _imports_of(path.read_text(encoding="utf-8"), package)


def _climbs(modules):
    return sorted(m for m in modules if m == "kernelkit.planning"
                  or m.startswith("kernelkit.planning."))


def test_choice_records_import_only_the_units():
    # solvers report through Choice: its module, on the ground floor, may import only
    # the units; the planning room's name for it is a re-export
    records = _kernelkit_imports(SRC / "_choices.py")
    assert records and all(m.startswith("kernelkit._units") for m in records), records
    alias = _kernelkit_imports(SRC / "planning" / "choices.py")
    assert alias and all(m.startswith("kernelkit._choices") for m in alias), alias


#: The rooms below the planner: they receive its decisions as plain values (or its
#: Choice, made before the numerics) and report what they find through
#: kernelkit._choices, never asking the planning room themselves.
BELOW_THE_PLANNER = ("gram.py", "linalg.py", "linalg_blocked.py", "solvers/", "tuning/",
                     "kernels/", "features/", "dask/operators.py", "dask/_runtime.py")


def _below_the_planner():
    return [path for path in sorted(SRC.rglob("*.py"))
            if path.relative_to(SRC).as_posix().startswith(BELOW_THE_PLANNER)]


def test_the_import_scan_sees_every_spelling():
    # the scanner must resolve relative and absolute imports, else the test below
    # proves nothing
    solvers = ["kernelkit", "solvers"]
    for source in ("from ..planning import Choice", "from ..planning.ridge import x",
                   "from .. import planning", "import kernelkit.planning",
                   "from kernelkit import planning", "from kernelkit.planning import plan_sgd",
                   "def f():\n    from ..planning.storage import decide_store"):
        assert _climbs(_imports_of(source, solvers)), source
    for source in ("from .._choices import Choice", "from ..gram import GramOperator",
                   "from . import planning_notes", "import kernelkit._budget"):
        assert not _climbs(_imports_of(source, solvers)), source
    assert len(_below_the_planner()) > 50


def test_rooms_below_the_planner_do_not_import_it():
    climbing = {}
    for path in _below_the_planner():
        found = _climbs(_kernelkit_imports(path))
        if found:
            climbing[path.relative_to(SRC).as_posix()] = found
    assert not climbing, (
        f"modules below the planner import kernelkit.planning: {climbing}. Make the decision "
        "in planning/ before the numerics and pass its value (or its Choice) in; report what "
        "was found in the data with kernelkit._choices.Choice (listed in REPORTS above).")
