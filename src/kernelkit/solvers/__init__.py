"""Pure numerical routines: arrays and operators in, arrays out."""

from .ridge import dual_ridge, dual_ridge_eigen, primal_ridge

__all__ = ["dual_ridge", "dual_ridge_eigen", "primal_ridge"]
