"""Ctrl-C during a compiled loop arrives as KeyboardInterrupt (issue 13).

numba returns from an interrupted call with the KeyboardInterrupt set on a
result, which CPython reports as ``SystemError: CPUDispatcher(...) returned a
result with an exception set``; :func:`kernelkit._compiled._common.interruptible`
gives the KeyboardInterrupt back. The subprocess tests send a real SIGINT.
"""

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from kernelkit import _compiled
from kernelkit._compiled._common import interruptible

pytestmark = pytest.mark.skipif(os.name != "posix", reason="sends SIGINT")


def test_interruptible_turns_numbas_system_error_back_into_keyboard_interrupt():
    def interrupted():
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as exc:
            raise SystemError("CPUDispatcher(f) returned a result with an exception set") from exc

    with pytest.raises(KeyboardInterrupt):
        interruptible(interrupted)()


def test_interruptible_leaves_other_errors_and_results_alone():
    def other():
        raise SystemError("something else")

    with pytest.raises(SystemError, match="something else"):
        interruptible(other)()
    with pytest.raises(ValueError, match="member and a"):
        _compiled.member_sums(np.ones((2, 2)), np.zeros(3, int), np.ones(3), np.empty((2, 1)))
    assert interruptible(lambda x, *, y: x + y)(1, y=2) == 3
    assert _compiled.member_sums.__name__ == "member_sums"


def test_every_compiled_entry_point_is_wrapped():
    for name in _compiled.__all__:
        if name not in _compiled._PLAIN:
            assert getattr(_compiled, name).__wrapped__ is not None, name


def _interrupt(cmd, started, delay, env=None):
    """Run ``cmd``, wait for the line ``started`` on stdout (or ``delay`` s), send SIGINT."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)
    try:
        if started:
            assert proc.stdout.readline().strip() == started
        time.sleep(delay)
        assert proc.poll() is None, "finished before the interrupt: make the work longer"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:  # pragma: no cover - only on a hang
            proc.kill()
            proc.communicate()
    return proc.returncode, out, err


# Kernel k-means' member sums (a parallel numba loop) called until interrupted: the
# case of the issue (Ctrl-C during KernelKMeans).
# A child started from a background job inherits SIGINT ignored, and then Python
# installs no handler: every child program restores Python's own first.
_RESTORE_SIGINT = "import signal; signal.signal(signal.SIGINT, signal.default_int_handler)\n"

_LOOP = _RESTORE_SIGINT + """
import time
import numpy as np
from kernelkit._compiled import member_sums
K = np.random.default_rng(0).random((2000, 2000))
member, a, out = np.arange(2000) % 5, np.ones(2000), np.empty((2000, 5))
member_sums(K, member, a, out)  # compiled (or loaded from the cache) before the signal
print("started", flush=True)
t0 = time.monotonic()
while time.monotonic() - t0 < 30:
    member_sums(K, member, a, out)
"""


def test_sigint_during_a_parallel_compiled_loop_raises_keyboard_interrupt():
    code, _, err = _interrupt([sys.executable, "-c", _LOOP], "started", 0.5)
    assert "SystemError" not in err, err
    assert err.strip().splitlines()[-1] == "KeyboardInterrupt", err
    assert code != 0


def test_cli_fit_interrupted_prints_interrupted_and_exits_130(tmp_path):
    # 3000 x 3000 Laplacian Gram matrix over 100 features: a compiled loop of a few
    # seconds (l1_exp), long enough to be interrupted in it.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 100))
    data = tmp_path / "train.csv"
    header = ",".join([f"x{j}" for j in range(X.shape[1])] + ["y"])
    np.savetxt(data, np.column_stack([X, X[:, 0]]), delimiter=",", header=header,
               comments="", fmt="%.6g")
    cmd = [sys.executable, "-c",
           _RESTORE_SIGINT + "import sys; from kernelkit.cli.main import main; "
           "print('started', flush=True); sys.exit(main())",
           "fit", str(data), "--target", "y", "--kernel", "laplacian(gamma=0.01)",
           "--solver", "dual", "--out", str(tmp_path / "m.kk")]
    code, out, err = _interrupt(cmd, "started", 1.5)
    assert code == 130, (code, err)
    assert err.strip().splitlines()[-1] == "kernelkit: interrupted", err
    assert "Traceback" not in err and "SystemError" not in err, err
    assert not (tmp_path / "m.kk").exists()
