"""Explicit feature maps as scikit-learn transformers: exact (polynomial, linear),
random Fourier features (Bochner), Nystroem, and random kitchen sinks."""

from .explicit import ExplicitFeatures, explicit_feature_dim
from .kitchen_sinks import RandomKitchenSinks
from .nystroem import Nystroem
from .random_fourier import RandomFourierFeatures

__all__ = ["ExplicitFeatures", "explicit_feature_dim", "Nystroem", "RandomFourierFeatures",
           "RandomKitchenSinks"]
