"""Remote WARC reads against real servers on 127.0.0.1 (issue 16): an HTTP server that drops,
resets, stalls, trickles, throttles, lies about Content-Length or ignores Range, and moto's S3
server behind the same faults for the boto3 path. Nothing of the reader is mocked.

For a transient fault the records read must equal those of the same file read from disk (and
the server's log must show the resume from the exact byte, not a restart); for a permanent one
the file's status, attempts and error must say what happened.
"""

from __future__ import annotations

import hashlib
import shutil
from dataclasses import replace

import pytest
from faultserver import FaultServer
from settings_support import extract_settings, read_limits, retry_policy
from warcgen import member_offsets

from crawlplan.extract.records import process_warc_file
from crawlplan.warc import attempts, remote, transports
from crawlplan.warc.reader import FileOutcome, iter_records
from crawlplan.warc.remote import NotFound, ReadIncomplete, RetryPolicy, Unreachable, read_range, read_ranges

# short waits and timeouts: the faults are the same, the test is fast
# the servers are on 127.0.0.1: remote.allow_private_addresses lets the reader connect there
POLICY = retry_policy(max_attempts=4, max_retry_s=30, backoff_s=0.01, backoff_max_s=0.05, read_timeout_s=1.0,
                     allow_private_addresses=True,
                     buffer_bytes=64 << 10)
NAME = "pages.warc.gz"


@pytest.fixture(scope="module")
def files(tmp_path_factory, shared_data):
    """A 60-record slice of realpages (whole gzip members), a copy cut inside its last member."""
    folder = tmp_path_factory.mktemp("served")
    head = (shared_data / "realpages/realpages.warc.gz").read_bytes()[: 3 << 20]
    offsets = member_offsets(head)[:61]              # the last offset only ends the 60th member
    data = head[: offsets[60]]
    (folder / NAME).write_bytes(data)
    (folder / "cut.warc.gz").write_bytes(data[: offsets[59] + (offsets[60] - offsets[59]) // 2])
    (folder / "copy.warc.gz").write_bytes(data)
    (folder / "empty.warc.gz").write_bytes(b"")
    return folder, data, offsets


@pytest.fixture(scope="module")
def http(files):
    with FaultServer(root=files[0]) as server:
        yield server


@pytest.fixture()
def server(http):
    http.reset()
    return http


def _records(path: str, reader: str = "warcio", policy: RetryPolicy = POLICY):
    outcome = FileOutcome(path)
    rows = [(r.offset, r.record_id, r.url, hashlib.sha1(r.payload or b"").hexdigest())
            for r in iter_records(path, outcome, reader=reader, remote=policy, limits=read_limits())]
    return rows, outcome


@pytest.fixture(scope="module")
def expected(files):
    return {reader: _records(str(files[0] / NAME), reader)[0] for reader in ("warcio", "fastwarc")}


TRANSIENT = {  # name: (faults the next requests meet, requests the read then takes)
    "drop": ([{"drop_after": 700_000}], 2),
    "reset": ([{"reset_after": 700_000}], 2),
    "503 Retry-After": ([{"status": 503, "retry_after": "0"}], 2),
    "429 then 500": ([{"status": 429}, {"status": 500}], 3),
    "stall (read timeout)": ([{"stall_after": 300_000, "stall_s": 3}], 2),
    "no Range support, then a drop": ([{"drop_after": 500_000}, {"ignore_range": True}], 2),
    "trickle": ([{"trickle": 4096, "delay_s": 0.0005}], 1),
}


@pytest.mark.parametrize("reader", ["warcio", "fastwarc"])
@pytest.mark.parametrize("fault", sorted(TRANSIENT))
def test_transient_faults_lose_nothing(server, expected, reader, fault):
    faults, attempts = TRANSIENT[fault]
    server.faults({f"/{NAME}": faults})
    rows, outcome = _records(f"{server.url}/{NAME}", reader)
    assert rows == expected[reader]
    assert (outcome.status, outcome.error) == ("ok", None)
    requests = [e for e in server.log() if e["path"] == f"/{NAME}"]
    assert outcome.attempts == len(requests) == attempts
    if fault == "drop":                           # resumed from the byte it stopped at, not restarted
        assert requests[1]["range"] == "bytes=700000-"
    if fault == "reset":                          # a reset may discard bytes in flight: resumed from the last one read
        assert 0 < int(requests[1]["range"][6:-1]) <= 700_000
    if fault.startswith("no Range"):
        assert requests[1]["range"] == "bytes=500000-" and requests[1]["status"] == 200
    if outcome.attempts > 1:
        assert outcome.last_error


def test_retry_after_is_honoured(server, files, monkeypatch):
    waits = []
    monkeypatch.setattr(attempts, "retry_sleep", waits.append)
    server.faults({f"/{NAME}": [{"status": 503, "retry_after": "2"}]})
    _, outcome = _records(f"{server.url}/{NAME}")
    assert outcome.status == "ok" and outcome.attempts == 2
    assert waits and waits[0] >= 2.0                  # the backoff alone would have waited <= 0.01 s


def test_a_retry_after_beyond_the_time_budget_is_not_waited_for(server, monkeypatch):
    waits = []
    monkeypatch.setattr(attempts, "retry_sleep", waits.append)
    server.faults({f"/{NAME}": [{"status": 503, "retry_after": "120"}]})
    _, outcome = _records(f"{server.url}/{NAME}", policy=retry_policy(max_retry_s=60, backoff_s=0.01,
                                                                                allow_private_addresses=True))
    assert outcome.status == "unreachable" and outcome.attempts == 1 and not waits
    assert "503" in outcome.last_error and "max_retry_s=60" in outcome.error


@pytest.mark.parametrize("reader", ["warcio", "fastwarc"])
def test_permanent_faults_get_honest_statuses(server, files, reader):
    server.faults({f"/{NAME}": [{"status": 503, "repeat": True}], "/copy.warc.gz": [{"status": 403}]})
    _, outcome = _records(f"{server.url}/{NAME}", reader)
    assert (outcome.status, outcome.attempts, outcome.records) == ("unreachable", POLICY.max_attempts, 0)
    assert "503" in outcome.last_error and f"{POLICY.max_attempts} attempts" in outcome.error
    _, outcome = _records(f"{server.url}/copy.warc.gz", reader)
    assert (outcome.status, outcome.attempts) == ("unreachable", 1)      # 403 is not retried
    _, outcome = _records(f"{server.url}/gone.warc.gz", reader)
    assert (outcome.status, outcome.attempts) == ("missing", 1)
    # the file on the server is itself cut inside its last gzip member: Content-Length agrees
    rows, outcome = _records(f"{server.url}/cut.warc.gz", reader)
    assert outcome.status == "truncated" and "gzip member" in outcome.error and len(rows) >= 58
    _, outcome = _records(f"{server.url}/empty.warc.gz", reader)
    assert (outcome.status, outcome.error) == ("corrupt", "zero-byte file")      # as a local empty file


@pytest.mark.parametrize("reader", ["warcio", "fastwarc"])
def test_a_body_shorter_than_its_content_length_is_truncated(server, reader):
    """The body ends 5,000 bytes before the announced length; the resumed request's Content-Range
    then gives the real size, which contradicts the first answer: no stitching, the file is cut."""
    server.faults({f"/{NAME}": [{"length_delta": 5000, "repeat": True}]})
    rows, outcome = _records(f"{server.url}/{NAME}", reader)
    assert outcome.status == "truncated" and outcome.attempts == 2
    assert "Content-Length" in outcome.error and "not retried" in outcome.error
    assert len(rows) == 60                           # every record was there; the promised bytes were not


@pytest.mark.parametrize("reader", ["warcio", "fastwarc"])
def test_a_stream_that_keeps_breaking_keeps_what_it_read(server, files, reader):
    """Every request dies 200 kB in: the reader resumes until its attempts are spent, keeps the
    records before the break, and the file is truncated with the accounting intact."""
    _, data, offsets = files
    server.faults({f"/{NAME}": [{"drop_after": 200_000, "repeat": True}]})
    settings = replace(extract_settings(reader=reader, extractor="resiliparse"), remote=POLICY)
    rows = list(process_warc_file(f"{server.url}/{NAME}", settings))
    file_row = rows[-1]
    assert file_row["file_status"] == "truncated" and file_row["attempts"] == POLICY.max_attempts
    read_until = POLICY.max_attempts * 200_000        # each resumed request adds 200 kB
    whole_records = sum(1 for a, b in zip(offsets, offsets[1:]) if b <= read_until)
    assert whole_records <= file_row["records"] <= whole_records + 1
    docs = sum(r["kind"] == "doc" for r in rows)
    record_rejects = sum(r["kind"] == "reject" and r["offset"] is not None for r in rows)
    assert docs + record_rejects == file_row["responses"] and file_row["documents"] == docs


def test_connections_are_reused_across_files(server):
    for name in (NAME, "copy.warc.gz", NAME):
        _records(f"{server.url}/{name}")
    clients = {e["client"] for e in server.log()}
    assert len(clients) == 1, "each file opened a new connection"


def test_byte_ranges_survive_faults_and_merge_neighbours(server, files):
    _, data, offsets = files
    url = f"{server.url}/{NAME}"
    assert read_range(url, offsets[3], offsets[4] - offsets[3], POLICY) == data[offsets[3]:offsets[4]]
    wanted = [(offsets[i], offsets[i + 1] - offsets[i]) for i in (50, 10, 11, 12, 40)]
    server.reset()
    server.faults({f"/{NAME}": [{"drop_after": 1000}, {"ignore_range": True}]})
    got = dict(read_ranges(url, wanted, POLICY, max_gap=64 << 10))
    assert {i: got[i] for i in range(len(wanted))} == {i: data[s:s + n] for i, (s, n) in enumerate(wanted)}
    spans = remote.merge_ranges(wanted, max_gap=64 << 10)
    assert [members for _, _, members in spans] == [[1, 2, 3], [4], [0]]
    assert len([e for e in server.log() if e["path"] == f"/{NAME}"]) == len(spans) + 1   # one retry
    with pytest.raises(NotFound):
        read_range(f"{server.url}/gone.warc.gz", 0, 10, POLICY)
    with pytest.raises(ReadIncomplete):
        read_range(url, len(data) - 10, 20, POLICY)
    server.faults({f"/{NAME}": [{"status": 500, "repeat": True}]})
    with pytest.raises(Unreachable) as failed:
        read_range(url, 0, 10, POLICY)
    assert failed.value.attempts == POLICY.max_attempts and "500" in failed.value.last_error


# ---- S3 (boto3 against moto's server, faults injected in front of it) -----------------------

@pytest.fixture(scope="module")
def s3(files):
    pytest.importorskip("boto3")
    pytest.importorskip("moto.server", reason="moto[server] is a test extra (pyproject.toml)")
    import boto3
    from botocore.config import Config

    # signed requests, as Common Crawl's bucket needs (moto accepts any key; it refuses anonymous reads)
    with FaultServer(s3=True) as server, pytest.MonkeyPatch.context() as env:
        for key, value in (("AWS_ACCESS_KEY_ID", "testing"), ("AWS_SECRET_ACCESS_KEY", "testing"),
                           ("AWS_SESSION_TOKEN", "testing"), ("AWS_DEFAULT_REGION", "us-east-1")):
            env.setenv(key, value)
        env.delenv("AWS_PROFILE", raising=False)
        direct = boto3.client("s3", endpoint_url=f"http://127.0.0.1:{server.s3_port}",
                              config=Config(s3={"addressing_style": "path"}))
        direct.create_bucket(Bucket="commoncrawl")
        for name in (NAME, "cut.warc.gz"):
            direct.put_object(Bucket="commoncrawl", Key=f"crawl-data/{name}", Body=(files[0] / name).read_bytes())
        yield server


S3_FAULTS = {
    "SlowDown + Retry-After": [{"status": 503, "retry_after": "0"}],
    "InternalError": [{"status": 500}],
    "drop": [{"drop_after": 600_000}],
    "stall": [{"stall_after": 200_000, "stall_s": 3}],
}


@pytest.mark.parametrize("fault", sorted(S3_FAULTS))
def test_s3_transient_faults_lose_nothing(s3, expected, fault):
    s3.reset()
    policy = replace(POLICY, s3_endpoint=s3.url)
    key = f"/commoncrawl/crawl-data/{NAME}"
    s3.faults({key: S3_FAULTS[fault]})
    rows, outcome = _records(f"s3://commoncrawl/crawl-data/{NAME}", policy=policy)
    assert rows == expected["warcio"] and outcome.status == "ok"
    requests = [e for e in s3.log() if e["path"] == key]
    assert outcome.attempts == len(requests) == 2
    if fault == "drop":
        assert requests[1]["range"] == "bytes=600000-"


def test_s3_permanent_faults_and_one_client_per_process(s3):
    s3.reset()
    policy = replace(POLICY, s3_endpoint=s3.url)
    s3.faults({f"/commoncrawl/crawl-data/{NAME}": [{"status": 503, "repeat": True}]})
    _, outcome = _records(f"s3://commoncrawl/crawl-data/{NAME}", policy=policy)
    assert (outcome.status, outcome.attempts) == ("unreachable", POLICY.max_attempts) and "SlowDown" in outcome.last_error
    _, outcome = _records("s3a://commoncrawl/crawl-data/absent.warc.gz", policy=policy)
    assert (outcome.status, outcome.attempts) == ("missing", 1) and "NoSuchKey" in outcome.error
    s3.faults({"/commoncrawl/crawl-data/cut.warc.gz": [{"status": 403}]})
    _, outcome = _records("s3://commoncrawl/crawl-data/cut.warc.gz", policy=policy)
    assert (outcome.status, outcome.attempts) == ("unreachable", 1)
    rows, outcome = _records("s3://commoncrawl/crawl-data/cut.warc.gz", policy=policy)
    assert outcome.status == "truncated" and rows
    assert transports.s3_client(policy) is transports.s3_client(policy)


def test_local_copies_read_as_before(files, expected, tmp_path):
    shutil.copy(files[0] / NAME, tmp_path / NAME)
    rows, outcome = _records(f"file://{tmp_path / NAME}")
    assert rows == expected["warcio"] and (outcome.status, outcome.attempts) == ("ok", 1)
