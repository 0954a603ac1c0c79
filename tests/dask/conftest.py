"""One LocalCluster (2 worker processes, 1 thread each) for the whole tests/dask run, and
a cluster of one worker of its own for the tests that take a worker down."""

import pytest

pytest.importorskip("dask.array")
pytest.importorskip("distributed")


@pytest.fixture(scope="session")
def cluster():
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                      dashboard_address=None, memory_limit="1GiB") as lc:
        yield lc


@pytest.fixture(scope="session")
def client(cluster):
    from distributed import Client

    with Client(cluster, set_as_default=False) as c:
        yield c


@pytest.fixture(params=["cluster", "local"])
def where(request):
    """The client to fit on: the LocalCluster's, or None (dask's local scheduler)."""
    if request.param == "cluster":
        return request.getfixturevalue("client")
    return None


@pytest.fixture
def own_cluster():
    """A cluster of one worker process (with its nanny) that a test may take down."""
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=1, processes=True, threads_per_worker=1,
                      dashboard_address=":0", memory_limit="512MiB") as lc:
        with Client(lc, set_as_default=False) as c:
            yield lc, c
