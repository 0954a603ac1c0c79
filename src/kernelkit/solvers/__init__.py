"""Pure numerical routines: arrays and operators in, arrays out."""

from . import buffers  # the pool of warm Gram buffers reused across fits
from .falkon import FalkonResult, falkon
from .box_erm import BoxERMResult, box_erm
from .distances import kneighbors_blocked, sq_distances
from .kernel_kmeans import KernelKMeansResult, kernel_kmeans
from .newton import NewtonResult, lbfgs_dual, lbfgs_multinomial, newton_dual
from .normal_equations import (NormalEquations, feature_normal_equations,
                               solve_normal_equations)
from .pegasos import PegasosResult, pegasos_gram, pegasos_kernel
from .ridge import dual_ridge, dual_ridge_eigen, primal_ridge
from .sgd import SGDResult, sgd
from .smo import SMOResult, smo_gram, smo_gram_path, smo_kernel
from .user_loss import UserLoss, make_loss

__all__ = ["dual_ridge", "dual_ridge_eigen", "primal_ridge", "SMOResult", "smo_gram",
           "smo_gram_path", "smo_kernel", "PegasosResult", "pegasos_gram", "pegasos_kernel", "NewtonResult",
           "lbfgs_dual", "lbfgs_multinomial", "newton_dual", "SGDResult", "sgd",
           "FalkonResult", "falkon",
           "BoxERMResult", "box_erm",
           "kneighbors_blocked", "sq_distances", "KernelKMeansResult", "kernel_kmeans",
           "NormalEquations", "feature_normal_equations", "solve_normal_equations",
           "UserLoss", "make_loss", "buffers"]
