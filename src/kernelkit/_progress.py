"""Progress of long fits: one small API for every solver.

``progress(total, desc, verbose)`` returns an object with ``update(n=1,
**status)`` and ``close()`` (also a context manager). It is

- silent (and free: a no-op object) when neither ``verbose`` nor kernelkit's
  ``verbosity`` setting is >= 1;
- a ``tqdm`` bar on stderr when asked and tqdm is installed;
- plain lines on stderr otherwise, at most about ten per stage (every 10% of
  ``total``, or every ``PLAIN_EVERY_SECONDS`` when ``total`` is unknown), the
  first of which says that ``pip install tqdm`` gives a bar.

The numerics never print: solvers take a ``callback`` or report between
chunks of compiled iterations, and the estimator owns the progress object.

Examples
--------
>>> from kernelkit._progress import progress
>>> with progress(100, "SMO", verbose=0) as bar:   # quiet: nothing printed
...     bar.update(10, gap=0.5)
"""

from __future__ import annotations

import sys
import time

from . import config

__all__ = ["progress", "is_verbose", "Progress", "PLAIN_EVERY_SECONDS"]

#: Seconds between plain progress lines when the total is unknown.
PLAIN_EVERY_SECONDS = 5.0

_TQDM_HINT_SHOWN = False


def is_verbose(verbose=0):
    """True when ``verbose`` or kernelkit's ``verbosity`` setting is >= 1."""
    return max(int(verbose or 0), int(config.get_config()["verbosity"])) >= 1


class Progress:
    """The silent progress object; the base of the two that show something."""

    def update(self, n=1, **status):
        """Advance by ``n`` steps; ``status`` (e.g. ``gap=1e-3``) is shown beside."""

    def close(self):
        """End the stage (prints the final line or closes the bar)."""

    def finish(self, reason):
        """End the stage saying why it stopped (``"converged: residual 3e-9 <= tol"``,
        ``"stopped at max_iter"``): printed after the bar or the last line."""
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class _Bar(Progress):
    """A tqdm bar opened at the first step, so that the set-up before it (a
    preconditioner, a Gram matrix) does not enter the rate and the ETA."""

    def __init__(self, tqdm, total, desc, unit):
        self._tqdm, self._bar, self._closed = tqdm, None, False
        self.total, self.desc, self.unit, self.done = total, desc, unit, 0
        self.start = time.perf_counter()

    def update(self, n=1, **status):
        self.done += n
        if self._bar is None:
            self._bar = self._tqdm(total=self.total, desc=f"kernelkit {self.desc}",
                                   unit=self.unit, leave=False, file=sys.stderr, initial=n)
        else:
            self._bar.update(n)
        if status:
            self._bar.set_postfix({k: _short(v) for k, v in status.items()})

    def close(self):
        if self._bar is not None:
            self._bar.close()

    def finish(self, reason):
        if self._closed:
            return
        self._closed = True
        self.close()
        of = f" of at most {self.total}" if self.total else ""
        elapsed = time.perf_counter() - self.start
        print(f"kernelkit {self.desc}: {reason} ({self.done}{of} {self.unit} in "
              f"{elapsed:.1f} s)", file=sys.stderr, flush=True)


class _Lines(Progress):
    def __init__(self, total, desc, unit):
        global _TQDM_HINT_SHOWN
        self.total, self.desc, self.unit = total, desc, unit
        self.done, self.start = 0, time.perf_counter()
        self._next_fraction, self._last_time, self._status = 0.1, self.start, {}
        self._closed = False
        hint = "" if _TQDM_HINT_SHOWN else " (pip install tqdm for a progress bar)"
        _TQDM_HINT_SHOWN = True
        of = f" of {total} {unit}" if total else ""
        self._print(f"{desc}: started{of}{hint}")

    def _print(self, text):
        print(f"kernelkit {text}", file=sys.stderr, flush=True)

    def _line(self):
        of = f"/{self.total}" if self.total else ""
        status = "".join(f", {k}={_short(v)}" for k, v in self._status.items())
        elapsed = time.perf_counter() - self.start
        return f"{self.desc}: {self.done}{of} {self.unit} in {elapsed:.1f} s{status}"

    def update(self, n=1, **status):
        self.done += n
        self._status.update(status)
        now = time.perf_counter()
        if self.total:
            if self.done >= self._next_fraction * self.total and self.done < self.total:
                self._print(self._line())
                while self._next_fraction * self.total <= self.done:
                    self._next_fraction += 0.1
        elif now - self._last_time >= PLAIN_EVERY_SECONDS:
            self._print(self._line())
            self._last_time = now

    def close(self):
        if not self._closed:
            self._closed = True
            self._print(self._line() + " (done)")

    def finish(self, reason):
        if not self._closed:
            self._closed = True
            self._print(self._line() + f": {reason}")


def _short(value):
    return f"{value:.3g}" if isinstance(value, float) else value


def progress(total, desc, verbose=0, unit="it"):
    """The progress object of one stage of a fit.

    Parameters
    ----------
    total : int or None
        Steps expected (e.g. ``max_iter``), None if unknown.
    desc : str
        What is running, e.g. ``"SMO"``, ``"Falkon CG"``, ``"Gram blocks"``.
    verbose : int, default=0
        The estimator's ``verbose``; kernelkit's ``verbosity`` setting also turns
        progress on.
    unit : str, default="it"

    Returns
    -------
    Progress
        ``update(n=1, **status)``, ``close()``; a context manager.
    """
    if not is_verbose(verbose):
        return Progress()
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return _Lines(total, desc, unit)
    return _Bar(tqdm, total, desc, unit)
