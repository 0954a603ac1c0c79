"""kernelkit on a Dask cluster (or out of core on one machine): ``kernelkit.dask``.

Needs ``dask[array]`` and ``distributed`` (``pip install "kernelkit[dask]"``);
``import kernelkit`` never imports this package. See docs/cluster.md.

- :class:`DaskKernelRidge`, :class:`DaskKernelRidgeClassifier` (solvers
  "features" and "falkon"), :class:`DaskKernelKMeans`;
- :func:`predict`, :func:`decision_function`, :func:`transform`,
  :func:`predict_proba` and :class:`ParallelPostFit` for any fitted model;
- :func:`gram` (a lazy dask array of kernel blocks) and
  :class:`DaskGramOperator` (Falkon's K_nM on the cluster);
- :func:`from_npy`: a ``.npy`` file as a dask array read one row range per task
  (rows per chunk from the workers' memory); a ``numpy.memmap`` given to a fit
  (``numpy.load(path, mmap_mode="r")``) is read from its file the same way.
"""

try:
    import dask.array  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError("kernelkit.dask needs dask and distributed: pip install "
                      "'kernelkit[dask]'") from exc

from ._runtime import DaskFitError
from .cluster import DaskKernelKMeans
from .io import from_npy
from .operators import DaskGramOperator, gram
from .predict import (ParallelPostFit, decision_function, predict, predict_proba,
                      transform)
from .ridge import DaskKernelRidge, DaskKernelRidgeClassifier

__all__ = ["DaskKernelRidge", "DaskKernelRidgeClassifier", "DaskKernelKMeans",
           "DaskGramOperator", "gram", "predict", "decision_function", "transform",
           "predict_proba", "ParallelPostFit", "from_npy", "DaskFitError"]
