"""Explicit feature maps as scikit-learn transformers."""

from .explicit import ExplicitFeatures, explicit_feature_dim

__all__ = ["ExplicitFeatures", "explicit_feature_dim"]
