"""Explicit feature maps as scikit-learn transformers: exact (polynomial, linear),
random Fourier features (Bochner), Nystroem, and random kitchen sinks; and the
choice of centers among the training rows (uniform, k-means++, leverage)."""

from .centers import select_centers
from .explicit import ExplicitFeatures, explicit_feature_dim
from .kitchen_sinks import RandomKitchenSinks
from .nystroem import Nystroem
from .random_fourier import RandomFourierFeatures
from .taylor import TaylorFeatures, taylor_error_bound, taylor_feature_dim
from .weisfeiler_lehman import WeisfeilerLehmanFeatures

__all__ = ["ExplicitFeatures", "explicit_feature_dim", "Nystroem", "RandomFourierFeatures",
           "RandomKitchenSinks", "select_centers",
           "TaylorFeatures", "taylor_error_bound", "taylor_feature_dim",
           "WeisfeilerLehmanFeatures"]
