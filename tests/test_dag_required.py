"""A node whose required input is empty fails loudly, naming why (crawlplan.dag.required)."""

from __future__ import annotations

import re

import pytest

from crawlplan.conf import load_conf
from crawlplan.dag.pipeline import load_pipeline
from crawlplan.dag.required import EmptyInputError, check_required_rows
from crawlplan.dag.runner import Runner

pytestmark = pytest.mark.spark


def test_unreadable_warc_files_stop_the_run_at_the_next_node_with_the_cause(spark, tmp_path):
    listing = tmp_path / "warc.paths"
    listing.write_text("crawl-data/a.warc.gz\ncrawl-data/b.warc.gz\n")
    # extract's own limit (extract.max_failed_files) raised: it finishes with nothing, the DAG stops
    conf = load_conf("local", overrides=["run.progress_every_s=0", "extract.max_failed_files=100"])
    conf["inputs"].update(warc_paths=str(listing), warc_base=f"{tmp_path}/moved-away/")
    out = tmp_path / "out"
    with pytest.raises(EmptyInputError) as err:
        Runner(spark, conf, str(out), echo=lambda *_: None).run_pipeline(load_pipeline("main"), until=["classify"])
    msg = str(err.value)
    assert "node 'classify' cannot run: its input 'documents' has 0 rows" in msg
    assert "run.min_input_rows.documents = 1" in msg and "node 'extract' produced nothing useful" in msg
    assert "extract wrote: documents=0" in msg
    assert re.search(r"warc_files: 2 rows, status \w+=2", msg), msg       # every file, by status
    assert "first error:" in msg and "a.warc.gz" in msg                    # the readers' own words
    assert f"inputs.warc_base={tmp_path}/moved-away/" in msg                # the base URL in force
    assert (out / "_markers" / "extract.json").exists() and not (out / "_markers" / "classify.json").exists()


def test_the_minimum_rows_and_the_exempt_nodes_are_settings(spark, tmp_path):
    pipeline = load_pipeline("main")
    node = pipeline.nodes["host_stats"]

    def marker(dataset, producer):
        assert (dataset, producer) == ("scores", "classify")
        return {"rows": {"scores": 0}, "counters": {"scored": 0}, "notes": ["every document rejected"]}

    with pytest.raises(EmptyInputError, match=r"(?s)'scores' has 0 rows.*classify noted: every document rejected"):
        check_required_rows(spark, load_conf("local"), pipeline, node, marker, [str(tmp_path)])
    for overrides in (["run.min_input_rows.scores=0"], ["run.empty_inputs_ok=[host_stats]"]):
        check_required_rows(spark, load_conf("local", overrides=overrides), pipeline, node, marker, [str(tmp_path)])
    # the report reads whatever exists: an empty run still gets its record accounting
    check_required_rows(spark, load_conf("local"), pipeline, pipeline.nodes["report"],
                        lambda d, p: {"rows": {d: 0}}, [str(tmp_path)])
