"""The Weisfeiler-Lehman subtree features of graphs: an explicit, finite, sparse feature map.

The Weisfeiler-Lehman subtree kernel is the inner product of label counts
(:class:`~kernelkit.kernels.WeisfeilerLehman`), so it has an exact feature map
once the labels are fixed. :class:`WeisfeilerLehmanFeatures` fixes them on the
training graphs: ``fit`` records every compressed label of every iteration
(its signature: the node's previous label and the sorted labels of its
neighbours), ``transform`` counts them in new graphs. A pattern never seen in
training has no training graph to match, so dropping it changes no inner
product with a training graph:
``transform(X_new) @ transform(X_train).T == WeisfeilerLehman(n_iter)(X_new, X_train)``.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .._fit_state import RestoresOnFailure
from .._validation import Interval, validate_params
from ..kernels.graphs import WeisfeilerLehman, node_arrays, wl_signatures
from ._output import FeatureNamesOutMixin

__all__ = ["WeisfeilerLehmanFeatures"]


class WeisfeilerLehmanFeatures(RestoresOnFailure, FeatureNamesOutMixin, TransformerMixin,
                               BaseEstimator):
    """Sparse Weisfeiler-Lehman label counts of graphs: the WL kernel's explicit features.

    Parameters
    ----------
    n_iter : int, default=3
        Number h of relabelling iterations, as in
        :class:`~kernelkit.kernels.WeisfeilerLehman`.

    Attributes
    ----------
    n_components_ : int
        Number of distinct labels of all iterations seen in ``fit``.
    level_sizes_ : ndarray of shape (n_iter + 1,)
        How many of them each iteration has (columns come in this order).
    vocabulary_ : list of dict
        Per iteration, label (iteration 0: its text; then the signature
        ``(label, *sorted neighbour labels)``) -> its column within the iteration.
    label_codes_, label_offsets_, signature_values_, signature_offsets_ : ndarray
        The same vocabulary as int64 arrays (what model files store): the label
        texts as code points, then every signature of iterations 1..h in
        column order.

    Notes
    -----
    The output is a ``scipy.sparse.csr_matrix`` of counts (float64), so
    ``set_output(transform="pandas")`` is not available; the columns are named
    ``weisfeilerlehmanfeatures0, ...``. Graphs are given as for the kernel
    (edge lists with labels, adjacency lists, networkx graphs).

    Examples
    --------
    >>> from kernelkit.features import WeisfeilerLehmanFeatures
    >>> path = ([(0, 1), (1, 2)], ["a", "b", "a"])
    >>> triangle = ([(0, 1), (1, 2), (0, 2)], ["a", "b", "a"])
    >>> Z = WeisfeilerLehmanFeatures(n_iter=1).fit_transform([path, triangle])
    >>> (Z @ Z.T).toarray()  # the kernel's Gram matrix
    array([[10.,  6.],
           [ 6., 10.]])

    References
    ----------
    Shervashidze, N., Schweitzer, P., van Leeuwen, E. J., Mehlhorn, K. and
    Borgwardt, K. M. (2011). Weisfeiler-Lehman graph kernels. JMLR 12, 2539-2561.
    """

    _param_constraints = {"n_iter": [Interval(Integral, 0, None)]}

    def __init__(self, n_iter=3):
        self.n_iter = n_iter

    def _check_params(self):
        validate_params(self, self._param_constraints, type(self).__name__)

    def _graphs(self, X):
        return list(WeisfeilerLehman().check_input(X, "X"))

    def fit(self, X, y=None):
        """Record the labels of every iteration on the training graphs.

        Parameters
        ----------
        X : list of graphs
        y : ignored

        Returns
        -------
        self
        """
        self._check_params()
        texts, indptr, indices, _ = node_arrays(self._graphs(X))
        vocabulary = [{t: i for i, t in enumerate(sorted(set(texts)))}]
        labels = np.array([vocabulary[0][t] for t in texts], dtype=np.int64)
        for _ in range(int(self.n_iter)):
            signatures = wl_signatures(labels, indptr, indices)
            table = {s: i for i, s in enumerate(sorted(set(signatures)))}
            vocabulary.append(table)
            labels = np.array([table[s] for s in signatures], dtype=np.int64)
        self._set_vocabulary(vocabulary)
        return self

    def _set_vocabulary(self, vocabulary):
        self.vocabulary_ = vocabulary
        self.level_sizes_ = np.array([len(v) for v in vocabulary], dtype=np.int64)
        self.n_components_ = int(self.level_sizes_.sum())
        for name, value in self._vocabulary_arrays().items():
            setattr(self, name, value)

    def transform(self, X):
        """Count the training labels in graphs.

        Parameters
        ----------
        X : list of graphs

        Returns
        -------
        scipy.sparse.csr_matrix of shape (len(X), ``n_components_``)
            Labels not seen in ``fit`` (and the patterns containing them) are
            not counted.
        """
        import scipy.sparse as sp

        check_is_fitted(self)
        graphs = self._graphs(X)
        texts, indptr, indices, owner = node_arrays(graphs)
        labels = np.array([self.vocabulary_[0].get(t, -1) for t in texts], dtype=np.int64)
        offset, rows, cols = 0, [], []
        for level, table in enumerate(self.vocabulary_):
            if level:  # a signature holding an unseen label (-1) is unseen too
                signatures = wl_signatures(labels, indptr, indices)
                labels = np.array([table.get(s, -1) for s in signatures], dtype=np.int64)
            keep = labels >= 0
            rows.append(owner[keep])
            cols.append(labels[keep] + offset)
            offset += len(table)
        rows, cols = np.concatenate(rows), np.concatenate(cols)
        Z = sp.csr_matrix((np.ones(len(rows)), (rows, cols)),
                          shape=(len(graphs), self.n_components_))
        Z.sum_duplicates()
        return Z

    # ---- model files: the vocabulary as plain arrays ------------------------------
    def _vocabulary_arrays(self):
        """The vocabulary as int64 arrays (``label_codes_``, ``label_offsets_``,
        ``signature_values_``, ``signature_offsets_``): what model files store."""
        texts = sorted(self.vocabulary_[0], key=self.vocabulary_[0].get)
        text_offsets = np.concatenate([[0], np.cumsum([len(t) for t in texts])])
        codes = np.frombuffer("".join(texts).encode("utf-32-le"), dtype="<u4").astype(np.int64)
        signatures = [s for table in self.vocabulary_[1:]
                      for s in sorted(table, key=table.get)]
        sig_offsets = np.concatenate([[0], np.cumsum([len(s) for s in signatures])])
        values = np.array([v for s in signatures for v in s], dtype=np.int64)
        return {"label_codes_": codes, "label_offsets_": text_offsets.astype(np.int64),
                "signature_values_": values,
                "signature_offsets_": sig_offsets.astype(np.int64)}

    def _vocabulary_from_arrays(self):
        """Rebuild ``vocabulary_`` from the stored arrays (ValueError if inconsistent)."""
        sizes = [int(v) for v in self.level_sizes_]
        codes, toff = self.label_codes_, self.label_offsets_
        values, soff = self.signature_values_, self.signature_offsets_
        if len(sizes) != int(self.n_iter) + 1 or min(sizes, default=0) < 0 or \
                len(toff) != sizes[0] + 1 or len(soff) != sum(sizes[1:]) + 1:
            raise ValueError("the vocabulary's sizes do not match n_iter and its arrays")
        for offs, total in ((toff, len(codes)), (soff, len(values))):
            if offs[0] != 0 or offs[-1] != total or (np.diff(offs) < 0).any():
                raise ValueError("the vocabulary's offsets must rise from 0 to the array size")
        if codes.size and (codes.min() < 0 or codes.max() > 0x10FFFF):
            raise ValueError("label codes must be Unicode code points")
        raw = codes.astype("<u4").tobytes()
        vocabulary = [{raw[4 * toff[i]:4 * toff[i + 1]].decode("utf-32-le"): i
                       for i in range(sizes[0])}]
        start = 0
        for level, size in enumerate(sizes[1:], start=1):
            table = {}
            for k in range(size):
                sig = tuple(int(v) for v in values[soff[start + k]:soff[start + k + 1]])
                if not sig or not all(0 <= v < sizes[level - 1] for v in sig):
                    raise ValueError(f"a signature of iteration {level} names labels outside "
                                     f"0..{sizes[level - 1] - 1}")
                table[sig] = k
            vocabulary.append(table)
            start += size
        if [len(v) for v in vocabulary] != sizes:
            raise ValueError("the vocabulary repeats a label or signature")
        self._set_vocabulary(vocabulary)
