"""Tuning a kernel's parameters through the estimator that holds it (``kernel__gamma``).

scikit-learn sets nested parameters by calling ``set_params`` on the
parameter's value; a kernel given as an expression string (``"rbf"``, the
default of every estimator, or ``"rbf(gamma=1) + linear"``) has none, so
``GridSearchCV(KernelSVC(), {"kernel__gamma": [...]})`` would end in
``AttributeError: 'str' object has no attribute 'set_params'``.
:class:`KernelParamsMixin` parses the string into its Kernel first, then sets
the nested parameter on it. It lives in the kernels room so that estimators
(``models``) and transformers (``features``) can both use it.
"""

from __future__ import annotations

import functools
import inspect

from .._fit_state import RestoresOnFailure
from .base import Kernel
from .registry import parse_kernel

__all__ = ["KernelParamsMixin"]

_PREFIX = "kernel__"


def _is_precomputed(kernel):
    return isinstance(kernel, str) and kernel.strip().lower() == "precomputed"


#: Parameters that scikit-learn's kernel estimators take beside ``kernel`` and that
#: kernelkit keeps inside the kernel (a familiar mistake: ``KernelRidge(gamma=0.1)``).
KERNEL_PARAMETER_NAMES = ("gamma", "degree", "coef0", "length_scale", "nu", "sigma",
                          "kernel_params")


def unknown_parameter_message(name, unknown, kwargs, params):
    """The TypeError text for keyword arguments an estimator does not take, with the
    kernelkit spelling when they are kernel parameters."""
    listed = ", ".join(f"{k}={kwargs[k]!r}" for k in unknown)
    kernel_ones = [k for k in unknown if k in KERNEL_PARAMETER_NAMES]
    if kernel_ones and "kernel" in params:
        kernel = kwargs.get("kernel", "rbf")
        base = kernel if isinstance(kernel, str) and "(" not in kernel else "rbf"
        inner = ", ".join(f"{k}={kwargs[k]!r}" for k in kernel_ones if k != "kernel_params")
        if "kernel_params" in kernel_ones and isinstance(kwargs["kernel_params"], dict):
            inner = ", ".join(filter(None, [inner, ", ".join(
                f"{k}={v!r}" for k, v in kwargs["kernel_params"].items())]))
        cls_name = {"rbf": "RBF", "poly": "Polynomial", "polynomial": "Polynomial",
                    "laplacian": "Laplacian", "sigmoid": "Sigmoid"}.get(base.lower(), None)
        alt = f" or kernel={cls_name}({inner})" if cls_name else ""
        return (f"{name} got {listed}: kernelkit keeps kernel parameters in the kernel, "
                f"not in the estimator (scikit-learn's spelling); write "
                f"kernel=\"{base}({inner})\"{alt}")
    return (f"{name} got unexpected keyword argument(s) {listed}; its parameters are: "
            f"{', '.join(params)}")


class KernelParamsMixin(RestoresOnFailure):
    """``set_params(kernel__<name>=...)`` for kernels given as strings.

    Its subclasses also fit all or nothing (:mod:`kernelkit._fit_state`): a fit
    that raises, Ctrl-C included, leaves the estimator as before the call.

    Put it first among the bases of an estimator whose ``kernel`` parameter
    may be an expression string. Parameter names follow the parsed kernel:
    ``"rbf"`` has ``kernel__gamma``; a sum ``"rbf + linear"`` is a
    :class:`~kernelkit.kernels.Sum` with terms ``k1``, ``k2``, so its RBF
    width is ``kernel__k1__gamma`` (``parse_kernel(text).get_params()`` lists
    them). ``get_params`` is scikit-learn's, unchanged: a string kernel has no
    nested entries there, so ``type(est)(**est.get_params())`` keeps working.

    Setting a nested parameter replaces the string by the parsed Kernel
    object (whose ``repr`` is an equivalent expression), so the estimator
    stays clonable and what it fits is what ``get_params`` shows. A kernel
    object is changed in place, as scikit-learn does for nested estimators.

    Examples
    --------
    >>> from kernelkit import KernelRidge
    >>> KernelRidge(kernel="rbf(gamma=1)").set_params(kernel__gamma=0.5).kernel
    RBF(gamma=0.5)
    >>> KernelRidge(kernel="rbf + linear").set_params(kernel__k1__gamma=2.0).kernel
    RBF(gamma=2.0) + Linear()
    """

    def __init_subclass__(cls, **kwargs):
        """Wrap the subclass's ``__init__`` so that a keyword it does not take is a
        TypeError saying the kernelkit spelling (``gamma=0.1`` ->
        ``kernel="rbf(gamma=0.1)"``). ``inspect.signature`` follows the wrapper
        (``__wrapped__``), so scikit-learn's ``get_params`` and ``clone`` see the
        original parameters."""
        super().__init_subclass__(**kwargs)
        init = cls.__init__  # its own, or inherited from a base that is not this mixin
        if init is object.__init__ or getattr(init, "_names_unknown_params", False):
            return
        params = [p for p in inspect.signature(init).parameters if p != "self"]
        known = set(params)

        @functools.wraps(init)
        def __init__(self, *args, **kw):
            unknown = [k for k in kw if k not in known]
            if unknown:
                given = {**dict(zip(params, args)), **kw}  # the kernel may come by position
                raise TypeError(unknown_parameter_message(type(self).__name__, unknown, given,
                                                          params))
            init(self, *args, **kw)

        __init__._names_unknown_params = True
        cls.__init__ = __init__

    def set_params(self, **params):
        """Set parameters; ``kernel__<name>`` also works when ``kernel`` is a string.

        Returns
        -------
        self
        """
        nested = {k[len(_PREFIX):]: v for k, v in params.items() if k.startswith(_PREFIX)}
        if not nested:
            return super().set_params(**params)
        rest = {k: v for k, v in params.items() if not k.startswith(_PREFIX)}
        if rest:
            super().set_params(**rest)
        kernel = self.kernel
        if _is_precomputed(kernel):
            raise ValueError(f"{type(self).__name__}: kernel='precomputed' has no parameters, "
                             f"cannot set {', '.join(_PREFIX + k for k in nested)}; pass a "
                             "kernel (e.g. kernel='rbf') to tune its parameters")
        if isinstance(kernel, str):
            kernel = parse_kernel(kernel)
        elif not isinstance(kernel, Kernel):
            raise ValueError(f"{type(self).__name__}: kernel is a Python function, whose "
                             f"parameters kernelkit cannot see; cannot set "
                             f"{', '.join(_PREFIX + k for k in nested)}. Tune 'kernel' itself "
                             "(a list of functions), or use a built-in kernel")
        kernel.set_params(**nested)
        super().set_params(kernel=kernel)
        return self
