"""Per-node progress lines: counts, ETA, and the job group that scopes them to the node."""

from __future__ import annotations

import pytest

from crawlplan.dag.progress import ProgressReporter, Snapshot, format_eta, progress_line


def test_format_eta_units():
    assert format_eta(4.4) == "4s"
    assert format_eta(125) == "2m05s"
    assert format_eta(3 * 3600 + 7 * 60) == "3h07m"
    assert format_eta(-3) == "0s"


def test_progress_line_counts_and_eta():
    line = progress_line("extract", Snapshot(jobs_done=1, jobs=2, tasks_done=25, tasks=100), elapsed=50)
    assert "25/100 tasks (25%)" in line and "1/2 Spark jobs" in line
    assert "ETA 2m30s" in line  # 75 tasks left at 0.5 task/s
    assert "ETA" not in progress_line("x", Snapshot(jobs=1, tasks_done=0, tasks=10), elapsed=5)
    assert "waiting for Spark tasks" in progress_line("x", Snapshot(), elapsed=1)
    assert "3 task attempts failed" in progress_line("x", Snapshot(jobs=1, tasks_done=1, tasks=2, tasks_failed=3), 1)


@pytest.mark.spark
@pytest.mark.quick
def test_reporter_counts_the_tasks_of_the_node_jobs(spark):
    lines: list[str] = []
    with ProgressReporter(spark, "unit", echo=lines.append, every_s=0) as rep:
        spark.range(0, 1000, numPartitions=4).selectExpr("id % 7 as k").groupBy("k").count().collect()
        snap = rep.detailed()
    assert snap.jobs >= 1 and snap.jobs_done == snap.jobs
    assert snap.tasks >= 4 and snap.tasks_done == snap.tasks
    assert rep.snapshot() == (snap.tasks_done, snap.tasks)
    # outside the node, later jobs are not counted for it
    spark.range(10).count()
    assert spark.sparkContext.getLocalProperty("spark.jobGroup.id") is None
