"""Extract in waves (``extract.checkpoint_files``): a run that dies after some waves resumes
from the saved ones, and its outputs equal those of a run without waves.

The crash is injected on the driver, between waves (the cluster lost while wave 3 runs); the
relaunch must not read the first two waves' WARC files again, and the duplicate record id planted
across waves must still be rejected once.
"""

from __future__ import annotations

import pytest
from warcgen import html_page, write_warc

from crawlplan.conf import load_conf
from crawlplan.dag.pipeline import load_pipeline
from crawlplan.dag.runner import Runner
from crawlplan.extract import spark as extract_spark

pytestmark = pytest.mark.spark

SHARED_ID = "<urn:uuid:00000000-0000-0000-0000-0000000a0e5e>"


@pytest.fixture(scope="module")
def warcs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("waves-in")
    paths = []
    for f in range(7):
        pages = [dict(url=f"http://site{f}.example.org/p{i}", body=html_page(f"site {f} page {i}")) for i in range(3)]
        if f in (0, 6):       # the same capture in the first and the last wave
            pages.append(dict(url="http://twice.example.org/", body=html_page("twice"), record_id=SHARED_ID))
        paths.append(str(write_warc(folder / f"part-{f:02d}.warc.gz", pages)))
    return paths


def _run(spark, paths, out, waves: int):
    conf = load_conf("local", overrides=["extract.extractor=resiliparse", "extract.reader=fastwarc",
                                         f"extract.checkpoint_files={waves}", "run.progress_every_s=0"])
    conf["inputs"]["warc_paths"] = paths
    return Runner(spark, conf, str(out), echo=lambda *_: None).run_pipeline(load_pipeline("main"), only="extract")


def _frames(spark, out):
    return {name: spark.read.parquet(str(out / name)).toPandas().sort_values(
        ["warc_file", "offset"] if name != "warc_files" else ["warc_file"]).reset_index(drop=True)
        for name in ("documents", "rejects", "warc_files")}


def test_a_run_killed_between_waves_resumes_and_equals_one_without_waves(spark, warcs, tmp_path, monkeypatch):
    _run(spark, warcs, tmp_path / "plain", 0)
    plain = _frames(spark, tmp_path / "plain")

    real = extract_spark.extract_wide
    calls: list[list[str]] = []

    def dies_on_third_wave(spark_, files, *args, **kw):
        calls.append(list(files))
        if len(calls) == 3:
            raise RuntimeError("cluster lost")
        return real(spark_, files, *args, **kw)

    monkeypatch.setattr(extract_spark, "extract_wide", dies_on_third_wave)
    out = tmp_path / "waves"
    with pytest.raises(RuntimeError, match="cluster lost"):
        _run(spark, warcs, out, 3)
    assert not (out / "documents").exists()                 # nothing half-written is visible
    assert len(list((out / "_work" / "extract").glob("*/wave-*"))) == 2

    calls.clear()
    summary = _run(spark, warcs, out, 3)["extract"]
    assert calls == [warcs[6:]]                             # only the unfinished wave is read
    assert summary["counters"]["waves"] == 3 and summary["counters"]["waves_resumed"] == 2
    assert any("resumed" in note for note in summary["notes"])
    assert not (out / "_work" / "extract").exists()         # partial work goes once the outputs are in place

    got = _frames(spark, out)
    for name, frame in plain.items():
        assert got[name].drop(columns=["seconds"], errors="ignore").equals(
            frame.drop(columns=["seconds"], errors="ignore")), name
    dups = got["rejects"][got["rejects"].reason == "duplicate_record_id"]
    assert len(dups) == 1 and dups.warc_file.iloc[0] == warcs[6]
