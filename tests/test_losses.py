"""Losses: derivatives against finite differences, safety for large margins."""

import numpy as np
import pytest

from kernelkit.solvers.losses import LOSSES, get_loss


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_derivatives_match_finite_differences(name):
    loss = get_loss(name)
    rng = np.random.default_rng(0)
    y = np.sign(rng.normal(size=200)) if loss.classification else rng.normal(size=200)
    z = rng.normal(scale=3, size=200)
    h = 1e-6
    fd = (loss.value(z + h, y) - loss.value(z - h, y)) / (2 * h)
    # away from kinks the subgradient is the derivative
    ok = np.abs(fd - loss.derivative(z, y)) < 1e-5
    kink = (np.abs(1 - y * z) < 1e-4) | (np.abs(np.abs(z - y) - loss.epsilon) < 1e-4)
    assert np.all(ok | kink)
    fd2 = (loss.derivative(z + h, y) - loss.derivative(z - h, y)) / (2 * h)
    assert np.all((np.abs(fd2 - loss.second_derivative(z, y)) < 1e-4) | kink)


def test_logistic_is_safe_for_huge_margins():
    loss = get_loss("logistic")
    z = np.array([-1e4, -800.0, 0.0, 800.0, 1e4])
    y = np.ones(5)
    v, d, s = loss.value(z, y), loss.derivative(z, y), loss.second_derivative(z, y)
    assert np.all(np.isfinite(v)) and np.all(np.isfinite(d)) and np.all(np.isfinite(s))
    np.testing.assert_allclose(v[0], 1e4)
    assert v[-1] == 0.0 and d[-1] == -0.0


def test_unknown_loss_and_bad_epsilon():
    with pytest.raises(ValueError, match="unknown loss"):
        get_loss("cross")
    with pytest.raises(ValueError, match="epsilon"):
        get_loss("huber", epsilon=0)
