"""Output feature names and ``set_output`` for the feature maps (scikit-learn's API).

The maps name their outputs as scikit-learn's own kernel approximations do
(``RBFSampler``: ``rbfsampler0, rbfsampler1, ...``): the lower-cased class name
and the output index, ``randomfourierfeatures0, ...``. With
``get_feature_names_out`` defined, scikit-learn's ``TransformerMixin`` gives
``set_output(transform="pandas")``, so a map inside a ``ColumnTransformer`` or
a pandas pipeline keeps its column names.
"""

from __future__ import annotations

from sklearn.base import ClassNamePrefixFeaturesOutMixin
from sklearn.utils.validation import _check_feature_names

__all__ = ["FeatureNamesOutMixin", "record_feature_names"]


class FeatureNamesOutMixin(ClassNamePrefixFeaturesOutMixin):
    """``get_feature_names_out`` from the fitted ``n_components_`` (the output dimension)."""

    @property
    def _n_features_out(self):
        # AttributeError before fit, which get_feature_names_out turns into NotFittedError
        return self.n_components_


def record_feature_names(estimator, X, *, reset):
    """Record (``reset=True``, in ``fit``) or check (in ``transform``) X's column names.

    Called on X as given, before it is converted to an array (which drops the
    names): sets ``feature_names_in_`` for a DataFrame with string column
    names, and in ``transform`` warns or raises as scikit-learn's
    ``validate_data`` does when the names differ from those seen in ``fit``.
    """
    _check_feature_names(estimator, X, reset=reset)
