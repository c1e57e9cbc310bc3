"""Extract in waves (``extract.checkpoint_files``): a run that dies after some waves resumes
from the saved ones, and its outputs equal those of a run without waves (one wave of every file)
and, row by row, the rows ``process_warc_file`` gives for the same files.

The crash is injected on the driver, between waves (the cluster lost while wave 3 runs); the
relaunch must not read the first two waves' WARC files again, and the duplicate record id planted
across waves must still be rejected once.
"""

from __future__ import annotations

import pytest
from warcgen import html_page, write_warc

from crawlplan.conf import load_conf, section
from crawlplan.dag.pipeline import load_pipeline
from crawlplan.dag.runner import Runner
from crawlplan.extract import spark as extract_spark
from crawlplan.extract.records import ExtractSettings, process_warc_file

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
        if f == 4:            # rejects: not HTML, not found
            pages += [dict(url="http://site4.example.org/logo.png", body=b"\x89PNG", content_type="image/png"),
                      dict(url="http://site4.example.org/gone", body=b"gone", status="404 Not Found")]
        paths.append(str(write_warc(folder / f"part-{f:02d}.warc.gz", pages)))
    return paths


def _conf(waves: int):
    return load_conf("local", overrides=["extract.extractor=resiliparse", "extract.reader=fastwarc",
                                         f"extract.checkpoint_files={waves}", "run.progress_every_s=0"])


def _run(spark, paths, out, waves: int, **selection):
    conf = _conf(waves)
    conf["inputs"]["warc_paths"] = paths
    selection = selection or {"until": ["extract"]}
    return Runner(spark, conf, str(out), echo=lambda *_: None).run_pipeline(load_pipeline("main"), **selection)


class CrashingExtract:
    """Stands in for ``extract_wide`` on the driver: records each wave's files and raises on the
    ``crash_at``-th wave (0 = never), as a cluster lost while that wave runs."""

    def __init__(self, real):
        self.real, self.calls, self.crash_at = real, [], 0

    def arm(self, crash_at: int) -> None:
        self.calls.clear()
        self.crash_at = crash_at

    def __call__(self, spark_, files, *args, **kw):
        self.calls.append(list(files))
        if len(self.calls) == self.crash_at:
            raise RuntimeError("cluster lost")
        return self.real(spark_, files, *args, **kw)


@pytest.fixture()
def crashing(monkeypatch):
    fake = CrashingExtract(extract_spark.extract_wide)
    monkeypatch.setattr(extract_spark, "extract_wide", fake)
    return fake


def _frames(spark, out):
    return {name: spark.read.parquet(str(out / name)).toPandas().sort_values(
        ["warc_file", "offset"] if name != "warc_files" else ["warc_file"]).reset_index(drop=True)
        for name in ("documents", "rejects", "warc_files")}


def test_a_run_killed_between_waves_resumes_and_equals_one_without_waves(spark, warcs, tmp_path, crashing):
    _run(spark, warcs, tmp_path / "plain", 0)
    plain = _frames(spark, tmp_path / "plain")

    out = tmp_path / "waves"
    crashing.arm(3)
    with pytest.raises(RuntimeError, match="cluster lost"):
        _run(spark, warcs, out, 3)
    assert not (out / "documents").exists()                 # nothing half-written is visible
    assert len(list((out / "_work" / "extract").glob("*/wave-*.done"))) == 2

    crashing.arm(0)
    summary = _run(spark, warcs, out, 3)["extract"]
    assert crashing.calls == [warcs[6:]]                    # only the unfinished wave is read
    assert summary["counters"]["waves"] == 3 and summary["counters"]["waves_resumed"] == 2
    assert any("resumed" in note for note in summary["notes"])
    assert not (out / "_work" / "extract").exists()         # partial work goes once the outputs are in place

    got = _frames(spark, out)
    for name, frame in plain.items():
        assert got[name].drop(columns=["seconds"], errors="ignore").equals(
            frame.drop(columns=["seconds"], errors="ignore")), name
    dups = got["rejects"][got["rejects"].reason == "duplicate_record_id"]
    assert len(dups) == 1 and dups.warc_file.iloc[0] == warcs[6]


def test_a_forced_run_or_other_settings_start_afresh(spark, warcs, tmp_path, crashing):
    for out, rerun in ((tmp_path / "forced", {"only": "extract"}), (tmp_path / "other-settings", {})):
        crashing.arm(3)
        with pytest.raises(RuntimeError, match="cluster lost"):
            _run(spark, warcs, out, 3)
        crashing.arm(0)
        conf = load_conf("local", overrides=["extract.extractor=resiliparse", "extract.reader=fastwarc",
                                             "extract.checkpoint_files=3", "run.progress_every_s=0"]
                         + ([] if rerun else ["extract.min_text_chars=100000"]))
        conf["inputs"]["warc_paths"] = warcs
        summary = Runner(spark, conf, str(out), echo=lambda *_: None).run_pipeline(
            load_pipeline("main"), **(rerun or {"until": ["extract"]}))["extract"]
        # --only forces the node from scratch; changed settings get a fresh work folder
        assert crashing.calls == [warcs[:3], warcs[3:6], warcs[6:]], out.name
        assert "waves_resumed" not in summary["counters"]
    assert summary["rows"]["documents"] == 0                 # min_text_chars applied to every wave


def test_the_spark_submit_entry_resumes_only_with_the_same_settings(spark, warcs, tmp_path, crashing):
    """``spark-submit jobs/extract.py`` (run_single_job) keeps waves under a fingerprint of its
    params and inputs too: the cluster relaunch resumes; a finished node is skipped."""
    from crawlplan.dag.runner import run_single_job

    pipeline = load_pipeline("main")
    out = tmp_path / "submit-out"

    def job(*extra):
        conf = load_conf("local", overrides=["extract.extractor=resiliparse", "extract.reader=fastwarc",
                                             "extract.checkpoint_files=3", "run.progress_every_s=0", *extra])
        conf["inputs"]["warc_paths"] = warcs
        return run_single_job(spark, conf, pipeline, "extract", [], str(out), echo=lambda *_: None)

    crashing.arm(2)
    with pytest.raises(RuntimeError, match="cluster lost"):
        job()
    crashing.arm(0)
    assert job()["counters"]["waves_resumed"] == 1 and crashing.calls == [warcs[3:6], warcs[6:]]   # relaunch

    crashing.arm(2)
    with pytest.raises(RuntimeError, match="cluster lost"):
        job("extract.min_text_chars=100000")
    crashing.arm(0)
    # the first settings' outputs are still current: skipped, and the other settings' waves dropped
    assert job()["status"] == "skipped" and crashing.calls == [] and not (out / "_work" / "extract").exists()
    assert "waves_resumed" not in job("extract.min_text_chars=100000")["counters"]   # waves never outlive a skip


def test_the_outputs_equal_the_bare_functions_rows(spark, warcs, tmp_path):
    """The node writes, row by row, what ``process_warc_file`` gives for the same files (the outputs
    read the extracted rows back from the saved wave, not from a cached copy): every document with
    all its columns, every reject, every file's counts; only the one cross-file duplicate moves from
    documents to rejects."""
    _run(spark, warcs, tmp_path, 0)
    got = _frames(spark, tmp_path)
    conf = _conf(0)
    settings = ExtractSettings.from_params(section(conf, "extract"), remote=section(conf, "remote"))
    rows = [row for path in warcs for row in process_warc_file(path, settings)]
    docs = [r for r in rows if r["kind"] == "doc" and (r["warc_file"] == warcs[0] or r["record_id"] != SHARED_ID)]
    moved = [r for r in rows if r["kind"] == "doc" and r["warc_file"] == warcs[6] and r["record_id"] == SHARED_ID]
    assert len(moved) == 1
    columns = list(got["documents"].columns)
    want = [tuple(r[c] for c in columns) for r in sorted(docs, key=lambda r: (r["warc_file"], r["offset"]))]
    have = [tuple(None if v != v else v for v in row) for row in got["documents"].itertuples(index=False)]
    assert [tuple(v.to_pydatetime() if hasattr(v, "to_pydatetime") else v for v in row) for row in have] == want

    rejects = sorted([r for r in rows if r["kind"] == "reject"] + [{**moved[0], "stage": "dedupe"}],
                     key=lambda r: (r["warc_file"], r["offset"]))
    assert [(r.warc_file, r.offset, r.record_id, r.url, r.stage) for r in got["rejects"].itertuples()] == \
        [(r["warc_file"], r["offset"], r["record_id"], r["url"], r["stage"]) for r in rejects]
    assert sorted(got["rejects"].reason) == sorted(["non_html", "status", "duplicate_record_id"])

    files = {r["warc_file"]: r for r in rows if r["kind"] == "file"}
    for r in got["warc_files"].itertuples():
        bare = files[r.warc_file]
        shift = int(r.warc_file == warcs[6])       # the duplicate, counted as a reject after dedupe
        assert (r.status, r.records, r.responses, r.documents, r.rejected) == (
            bare["file_status"], bare["records"], bare["responses"], bare["documents"] - shift,
            bare["rejected"] + shift), r.warc_file
    assert sorted(files) == sorted(got["warc_files"].warc_file)
