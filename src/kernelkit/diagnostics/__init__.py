"""Diagnostics of kernels, Gram matrices and feature maps.

- :mod:`.gram_matrix`: PSD checks, Rademacher complexity, effective
  dimension and spectra of a Gram matrix on one sample;
- :mod:`.approximation`: how well a feature map (random Fourier features,
  Nystroem) reproduces its kernel, measured on pairs of a sample;
- :mod:`.bounds`: the Hoeffding and Rahimi-Recht probability bounds on the
  error of random Fourier features (pure arithmetic).
- :mod:`.rkhs`: the RKHS norm ||f||_H of a fitted model (sqrt(u'K u), or ||w||);
- :mod:`.learning_bounds`: generalisation bounds with their constants -- the
  kernel class ||f||_H <= B (Rademacher, contraction, McDiarmid) and the
  weighted sums of random kitchen sinks (Rahimi & Recht 2008, Theorem 1).

These functions look at one sample of data; they answer "is this kernel PSD on
my points?" or "how many directions does ridge regression really fit?", not
questions about the kernel on every input. Every public name is importable
from :mod:`kernelkit.diagnostics` itself.

References
----------
Rahimi, A. and Recht, B. (2007). Random features for large-scale kernel
machines. Advances in Neural Information Processing Systems 20.
Bartlett, P. L. and Mendelson, S. (2002). Rademacher and Gaussian
complexities: risk bounds and structural results. Journal of Machine
Learning Research 3, 463-482.
"""

from .approximation import (ApproximationCurve, ApproximationError, approximation_curve,
                            approximation_error, data_diameter)
from .bounds import (hoeffding_bound, hoeffding_epsilon, rahimi_recht_bound,
                     rahimi_recht_epsilon, spectral_second_moment)
from .gram_matrix import PSDReport, effective_dimension, psd_check, rademacher_bound, spectrum
from .learning_bounds import (GeneralizationBound, KitchenSinksBound, generalization_bound,
                              kitchen_sinks_bound)
from .rkhs import rkhs_norm

__all__ = ["PSDReport", "psd_check", "rademacher_bound", "effective_dimension",
           "ApproximationError", "ApproximationCurve", "approximation_error",
           "approximation_curve", "data_diameter", "hoeffding_bound", "hoeffding_epsilon",
           "rahimi_recht_bound", "rahimi_recht_epsilon", "spectral_second_moment", "spectrum",
           "rkhs_norm", "generalization_bound", "GeneralizationBound", "kitchen_sinks_bound",
           "KitchenSinksBound"]
