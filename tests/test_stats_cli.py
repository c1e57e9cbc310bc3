"""``crawlplan stats show`` reads the summary tables without Spark."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from crawlplan.cli import main


def test_stats_show_prints_icc_and_reports_missing_tables(tmp_path, capsys):
    (tmp_path / "icc").mkdir()
    pq.write_table(pa.table({"classifier": ["dclm", "dclm"], "min_docs": [5, 3], "hosts": [10, 12],
                             "documents": [70, 80], "mean_docs": [7.0, 6.67], "var_between": [0.1, 0.1],
                             "var_within": [0.1, 0.1], "icc1": [0.5, 0.48], "reliability": [0.875, 0.86],
                             "correlation_ceiling": [0.935, 0.927]}), tmp_path / "icc" / "part-0.parquet")
    assert main(["stats", "show", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "== icc (2 rows)" in out and "0.4800" in out
    assert out.index(" 3 ") < out.index(" 5 ")  # sorted by min_docs
    assert "== correlations: missing" in out
    assert main(["stats", "show", "--out", str(tmp_path), "--table", "coverage"]) == 2


def test_stats_show_requires_a_verb():
    with pytest.raises(SystemExit):
        main(["stats"])
