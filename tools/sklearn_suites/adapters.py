"""scikit-learn's estimator signatures in front of kernelkit's estimators.

Each adapter has exactly the ``__init__`` of the scikit-learn class it stands
for (the function itself, so ``get_params``/``clone`` see the same
parameters) and nothing else of it: ``fit`` translates the parameters into a
kernelkit estimator (kernel names + gamma/degree/coef0 into a kernel
expression), and every other method or fitted attribute is kernelkit's,
reached through ``__getattr__``. No scikit-learn code computes anything.

A parameter kernelkit has no counterpart for is ignored only when it cannot
change the result (``cache_size``, ``n_jobs``, ``algorithm``, ...); any other
non-default value raises ``NotImplementedError``, so such tests fail and are
counted as failures.
"""

from __future__ import annotations

import functools
import inspect

import numpy as np
import sklearn.base
import sklearn.cluster
import sklearn.kernel_approximation
import sklearn.kernel_ridge
import sklearn.neighbors
import sklearn.svm

import kernelkit

# Parameters that cannot change the fitted model (speed, memory, output only).
HARMLESS = {"cache_size", "n_jobs", "algorithm", "leaf_size", "copy_x", "verbose", "shrinking"}

_KERNEL_PARAMS = ("kernel", "gamma", "degree", "coef0", "kernel_params")


def _number(value):
    if isinstance(value, str):
        return value                         # "scale" / "auto": kernelkit's parser decides
    return repr(float(value))


def kernel_expression(params, default_gamma):
    """A kernelkit kernel (expression string, callable or 'precomputed') from
    scikit-learn's ``kernel, gamma, degree, coef0`` (and ``kernel_params``)."""
    kernel = params.get("kernel", "rbf")
    if callable(kernel) and params.get("kernel_params"):
        return functools.partial(kernel, **params["kernel_params"])
    if callable(kernel) or kernel == "precomputed":
        return kernel
    gamma = params.get("gamma")
    gamma = default_gamma if gamma is None else gamma
    extra = params.get("kernel_params") or {}
    gamma = extra.get("gamma", gamma)
    degree = extra.get("degree", params.get("degree", 3))
    coef0 = extra.get("coef0", params.get("coef0", 1))
    if kernel == "linear":
        return "linear"
    if kernel == "rbf":
        return f"rbf(gamma={_number(gamma)})"
    if kernel == "laplacian":
        return f"laplacian(gamma={_number(gamma)})"
    if kernel in ("poly", "polynomial"):
        return f"polynomial(degree={degree}, gamma={_number(gamma)}, coef0={_number(coef0)})"
    if kernel == "sigmoid":
        return f"sigmoid(gamma={_number(gamma)}, coef0={_number(coef0)})"
    if kernel == "chi2":
        return f"chi2(gamma={_number(1.0 if params.get('gamma') is None else gamma)})"
    if kernel == "additive_chi2":
        return "additive_chi2"
    return kernel          # anything else: kernelkit's parser says whether it knows it


class _Adapter(sklearn.base.BaseEstimator):
    """Base of the adapters; subclasses set the class attributes below."""

    _sk = None                  # the scikit-learn class (for its defaults)
    _kk = None                  # the kernelkit class
    _default_gamma = "scale"
    _renamed = {}               # scikit-learn name -> kernelkit name
    _translate = {}             # scikit-learn name -> function(value) -> kernelkit value
    _consumed = ()              # scikit-learn names that _fixed() turns into kernelkit's

    def _kernelkit_estimator(self):
        params = self.get_params(deep=False)
        defaults = {k: p.default for k, p in
                    inspect.signature(self._sk.__init__).parameters.items() if k != "self"}
        accepted = set(inspect.signature(self._kk.__init__).parameters) - {"self"}
        kw = {}
        if "kernel" in accepted and "kernel" in params:
            kw["kernel"] = kernel_expression(params, self._default_gamma)
        for name, value in params.items():
            if name in self._consumed or (
                    name in _KERNEL_PARAMS and "kernel" in accepted and "kernel" in params):
                continue
            target = self._renamed.get(name, name)
            if name in self._translate:
                value = self._translate[name](value)
            if target in accepted:
                kw[target] = value
            elif name in HARMLESS or _same(value, defaults.get(name)):
                continue
            else:
                raise NotImplementedError(
                    f"kernelkit's {self._kk.__name__} has no counterpart of "
                    f"{self._sk.__name__}({name}={value!r})")
        kw.update(self._fixed())
        return self._kk(**kw)

    def _fixed(self):
        return {}

    def fit(self, X, y=None, **fit_params):
        est = self._kernelkit_estimator()
        est.fit(X, y, **fit_params) if y is not None or _takes_y(est) else est.fit(X, **fit_params)
        self.__dict__["_fitted"] = est
        return self

    def __sklearn_is_fitted__(self):
        return "_fitted" in self.__dict__

    def __getattr__(self, name):
        if name.startswith("__") or name == "_fitted":
            raise AttributeError(name)
        fitted = self.__dict__.get("_fitted")
        if fitted is None:
            if hasattr(self._kk, name) and callable(getattr(self._kk, name)):
                sklearn.utils.validation.check_is_fitted(self)
            raise AttributeError(name)
        return getattr(fitted, name)

    def __sklearn_tags__(self):
        return self._kernelkit_estimator().__sklearn_tags__()


def _takes_y(est):
    return "y" in inspect.signature(est.fit).parameters and \
        inspect.signature(est.fit).parameters["y"].default is inspect.Parameter.empty


def _same(a, b):
    try:
        return bool(a == b) if not isinstance(a, np.ndarray) else False
    except Exception:
        return False


def _probability(value):
    """scikit-learn 1.9's default ``probability="deprecated"`` means False."""
    return False if isinstance(value, str) and value == "deprecated" else value


def _max_iter(value):
    return None if value in (-1, None) else value


def _euclidean_only(est):
    """k-NN: kernelkit's linear-kernel distances are the Euclidean ones; nothing else."""
    metric, p = est.metric, getattr(est, "p", 2)
    if est.metric_params:
        raise NotImplementedError("kernelkit's kernel k-NN takes no metric_params")
    if metric == "euclidean" or (metric == "minkowski" and p == 2):
        return {"kernel": "linear"}
    raise NotImplementedError(f"kernelkit's kernel k-NN uses feature-space distances "
                              f"(Euclidean for the linear kernel), not metric={metric!r}, p={p}")


def _init_like(sk_cls):
    """An ``__init__`` with ``sk_cls``'s signature that only stores the parameters
    (scikit-learn's own calls ``super().__init__``, which needs its classes)."""
    sig = inspect.signature(sk_cls.__init__)

    def __init__(self, *args, **kwargs):
        bound = sig.bind(self, *args, **kwargs)
        bound.apply_defaults()
        for key, value in list(bound.arguments.items())[1:]:
            setattr(self, key, value)

    __init__.__signature__ = sig
    return __init__


def _adapter(name, sk_cls, kk_name, base_mixins=(), **attrs):
    kk_cls = getattr(kernelkit, kk_name, None)
    if kk_cls is None:
        return None
    ns = {"__init__": _init_like(sk_cls), "_sk": sk_cls, "_kk": kk_cls,
          "__module__": __name__, "__qualname__": name, **attrs}
    cls = type(name, base_mixins + (_Adapter,), ns)
    globals()[name] = cls
    return cls


def build():
    """The adapters kernelkit can stand behind: {(module, name): adapter class}."""
    made = {}
    spec = [
        (sklearn.svm, "SVC", "KernelSVC", (sklearn.base.ClassifierMixin,),
         {"_translate": {"max_iter": _max_iter, "probability": _probability}}),
        (sklearn.svm, "SVR", "KernelSVR", (sklearn.base.RegressorMixin,),
         {"_translate": {"max_iter": _max_iter}}),
        (sklearn.svm, "OneClassSVM", "KernelOneClassSVM", (sklearn.base.OutlierMixin,),
         {"_translate": {"max_iter": _max_iter}}),
        (sklearn.kernel_ridge, "KernelRidge", "KernelRidge", (sklearn.base.RegressorMixin,),
         {"_default_gamma": "auto", "_fixed": lambda self: {"fit_intercept": False}}),
        (sklearn.kernel_approximation, "RBFSampler", "RandomFourierFeatures",
         (sklearn.base.TransformerMixin,),
         {"_consumed": ("gamma",), "_fixed": lambda self: {
             "kernel": f"rbf(gamma={_number(self.gamma)})"}}),
        (sklearn.kernel_approximation, "Nystroem", "Nystroem", (sklearn.base.TransformerMixin,),
         {"_default_gamma": "auto"}),
        (sklearn.neighbors, "KNeighborsClassifier", "KernelKNeighborsClassifier",
         (sklearn.base.ClassifierMixin,),
         {"_consumed": ("metric", "p", "metric_params"), "_fixed": _euclidean_only}),
        (sklearn.neighbors, "KNeighborsRegressor", "KernelKNeighborsRegressor",
         (sklearn.base.RegressorMixin,),
         {"_consumed": ("metric", "p", "metric_params"), "_fixed": _euclidean_only}),
        (sklearn.cluster, "KMeans", "KernelKMeans", (sklearn.base.ClusterMixin,),
         {"_fixed": lambda self: {"kernel": "linear"}}),
    ]
    for module, name, kk_name, mixins, attrs in spec:
        cls = _adapter(name, module and getattr(module, name), kk_name, mixins, **attrs)
        if cls is not None:
            made[(module.__name__, name)] = cls
    return made


def install():
    """Put the adapters where scikit-learn's test files import from; returns them."""
    made = build()
    for (module_name, name), cls in made.items():
        import sys
        setattr(sys.modules[module_name], name, cls)
    return made
