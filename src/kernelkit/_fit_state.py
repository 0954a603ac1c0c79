"""All or nothing: a fit that raises leaves the estimator as it was before the call.

The rule, for every kernelkit estimator and transformer: ``fit`` (and
``fit_transform``, ``fit_predict``, ``partial_fit``) either returns with the new
fitted state, or raises -- any exception, ``KeyboardInterrupt`` (Ctrl-C)
included -- with the estimator's attributes exactly as before the call. An
unfitted estimator stays unfitted (``check_is_fitted`` raises, no stray
``n_features_in_``, ``classes_`` or ``kernel_``); a fitted one that fails to
refit keeps its previous model, which still predicts as before.

How: the instance's ``__dict__`` (its parameters and fitted attributes) is
copied before the fit (a shallow copy: fits assign new attributes, they do not
change arrays they did not create) and put back when the fit raises. Lowest
room: imports nothing from kernelkit.
"""

from __future__ import annotations

import functools
import inspect
import types

__all__ = ["RestoresOnFailure", "restores_on_failure", "FIT_METHODS"]

#: The methods that fit: each is wrapped by :func:`restores_on_failure`.
FIT_METHODS = ("fit", "fit_transform", "fit_predict", "partial_fit")


def restores_on_failure(method):
    """``method`` wrapped so that, when it raises, ``self.__dict__`` is restored.

    The signature seen by ``inspect.signature`` (and so by scikit-learn's
    ``has_fit_parameter``) is the method's own, through ``__wrapped__``.
    """
    if getattr(method, "_restores_on_failure", False):
        return method

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        before = dict(self.__dict__)
        try:
            return method(self, *args, **kwargs)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(before)
            raise

    wrapper._restores_on_failure = True
    return wrapper


class RestoresOnFailure:
    """Mixin: every fitting method of a subclass (its own or inherited, see
    :data:`FIT_METHODS`) restores the instance when it raises."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name in FIT_METHODS:
            try:
                method = inspect.getattr_static(cls, name)
            except AttributeError:
                continue
            # plain functions only: descriptors such as scikit-learn's available_if
            # keep deciding whether the method exists
            if isinstance(method, types.FunctionType) and \
                    not getattr(method, "_restores_on_failure", False):
                setattr(cls, name, restores_on_failure(method))
