"""Safe model files: arrays plus JSON metadata in one zip file; never pickle.

A model file is a zip archive with ``metadata.json`` and one ``.npy`` member
per fitted array. Loading reads JSON and raw numeric arrays only, plus
fixed-width unicode (``"<U"``) arrays for the strings of string-kernel models
(``allow_pickle=False``; never object arrays), rebuilds the estimator from an allow-list of class
names, and checks every array's dtype, shape and finiteness against the
metadata and against each other, so a truncated, edited or foreign file
raises :class:`~kernelkit.ModelFormatError` instead of executing anything or
producing a broken model. Writes are atomic: a temporary file in the same
directory, flushed and fsynced, then ``os.replace``.
"""

from ._format import FORMAT_NAME, FORMAT_VERSION
from .model_files import load, read_metadata, save

__all__ = ["save", "load", "read_metadata", "FORMAT_NAME", "FORMAT_VERSION"]
