"""Kernel objects and their algebra.

Vector kernels (:class:`Linear`, :class:`Polynomial`, :class:`RBF`,
:class:`Laplacian`, :class:`Cauchy`, :class:`Sigmoid`, :class:`KroneckerDelta`,
:class:`Constant`), the algebra's nodes (``k1 + k2``, ``k1 * k2``, ``c * k``,
``k ** p``, :class:`Exp`, :class:`Warped`, :class:`Composed`, :class:`Bilinear`),
string kernels (:class:`Subsequence`, :class:`Spectrum`, :class:`WeightedDegree`),
kernels on other objects -- sets (:class:`MeanEmbedding`), trees
(:class:`SubsetTree`), graphs (:class:`WeisfeilerLehman`), time series
(:class:`GlobalAlignment`); :class:`ObjectKernel` and :mod:`.objects` say how to add one --
:class:`CallableKernel` (a user's function ``k(X, Y) -> Gram``), spectral
densities for random features, one registry/parser of names, and
:class:`KernelRows`, the block API (see :class:`Kernel`) bound to one pair of inputs.
"""

from .algebra import Bilinear, Composed, Exp, Power, Product, Scaled, Sum, Warped
from .base import Kernel
from .callable import CallableKernel
from .estimator_params import KernelParamsMixin
from .chi2 import AdditiveChi2, Chi2
from .matern import Matern
from .spline import Spline
from .graphs import LabelledGraph, WeisfeilerLehman
from .alignment import GlobalAlignment
from .rows import KernelRows
from .objects import ObjectCodec, ObjectKernel, register_object_kind, takes_objects
from .sets import MeanEmbedding
from .trees import SubsetTree, Tree, parse_tree
from .registry import KERNELS, kernel_from_dict, parse_kernel, register_kernel, resolve_kernel
from .strings import Spectrum, Subsequence, WeightedDegree
from .vector import RBF, Cauchy, Constant, KroneckerDelta, Laplacian, Linear, Polynomial, Sigmoid

__all__ = [
    "Kernel", "KernelRows", "Linear", "Polynomial", "RBF", "Laplacian", "Cauchy", "Sigmoid",
    "KroneckerDelta",
    "Constant", "Sum", "Product", "Scaled", "Power", "Exp", "Warped", "Composed", "Bilinear",
    "Subsequence", "Spectrum", "WeightedDegree", "CallableKernel",
    "KernelParamsMixin", "Matern", "Chi2",
    "AdditiveChi2", "Spline", "WeisfeilerLehman", "LabelledGraph",
    "GlobalAlignment",
    "ObjectKernel", "ObjectCodec", "register_object_kind", "takes_objects", "MeanEmbedding",
    "SubsetTree", "Tree", "parse_tree",
    "KERNELS", "parse_kernel", "resolve_kernel", "kernel_from_dict", "register_kernel",
]
