"""Test-session settings: plans must not depend on a developer's calibration cache."""

import os
import tempfile

# Set before any test imports kernelkit.calibration's cache: the planner then uses
# the reference rates, so every machine plans the same way in tests.
os.environ["KERNELKIT_CACHE_DIR"] = tempfile.mkdtemp(prefix="kernelkit-test-cache-")
