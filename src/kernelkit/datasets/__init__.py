"""Datasets: bundled examples and readers for delimited tables, IDX and libsvm files.

Bundled data (``load_cpu_act``, ``load_banana``, ``load_california_housing``,
``load_dna_splice``) ships
inside the package and is read with :mod:`importlib.resources`, so it works
from an installed wheel; sources and licences are in ``kernelkit/data/README.md``.
Nothing here touches the network.

``read_table`` is what ``kernelkit fit`` and ``kernelkit predict`` use to read
user files, so its errors name the file, the line and the column.
"""

from .bundled import (Dataset, load_banana, load_california_housing, load_cpu_act,
                      load_dna_splice)
from .readers import load_idx, load_libsvm, read_table
from .shared import load_fashion_mnist, load_shared_table, load_sms_spam, shared_data_dir

__all__ = [
    "Dataset",
    "load_cpu_act",
    "load_banana",
    "load_california_housing",
    "load_dna_splice",
    "read_table",
    "load_idx",
    "load_fashion_mnist",
    "load_libsvm",
    "shared_data_dir",
    "load_shared_table",
    "load_sms_spam",
]
