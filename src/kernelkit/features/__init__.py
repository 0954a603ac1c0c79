"""Explicit feature maps as scikit-learn transformers: exact (polynomial, linear),
random Fourier features (Bochner), and Nystroem."""

from .explicit import ExplicitFeatures, explicit_feature_dim
from .nystroem import Nystroem
from .random_fourier import RandomFourierFeatures

__all__ = ["ExplicitFeatures", "explicit_feature_dim", "Nystroem", "RandomFourierFeatures"]
