import matplotlib
import pytest

matplotlib.use("Agg")


@pytest.fixture(autouse=True)
def _close_figures():
    """Figures are drawn off screen and closed after each test."""
    yield
    import matplotlib.pyplot as plt
    plt.close("all")
