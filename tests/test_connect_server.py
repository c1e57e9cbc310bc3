"""The loopback Spark Connect server of the Connect tests (scripts/spark-connect.sh): reachable,
and its workers cannot import crawlplan, so a test that passes on it shipped the package itself."""

from __future__ import annotations

import pytest
from connect_support import run_client

pytestmark = pytest.mark.slow


def test_the_servers_workers_cannot_import_crawlplan(spark_connect):
    proc = run_client(spark_connect, """
        import pandas as pd
        def probe(batches):
            for _ in batches:
                try:
                    import crawlplan  # noqa: F401
                    found = "importable"
                except ImportError:
                    found = "missing"
                yield pd.DataFrame({"found": [found]})
        print("WORKER", spark.range(1).mapInPandas(probe, "found string").first().found)
        import crawlplan  # the client side has it
        print("MASTER", spark.conf.get("spark.master"))
    """)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "WORKER missing" in proc.stdout
    assert "MASTER local[2]" in proc.stdout
