"""Every remote read is bounded (issue 27): a per-file deadline and a minimum throughput over a
window (a server trickling a byte a second is cut, resumed, then given up on), connections only
to public addresses unless ``remote.allow_private_addresses``, redirects only within the origin.

The exact time bounds are checked with a fake clock (no waiting, no timing assertion); the
loopback servers (``faultserver.py``) show the same on real sockets, with a generous wall bound.
"""

from __future__ import annotations

import time
from dataclasses import replace

import pytest
from faultserver import FaultServer
from settings_support import extract_settings, read_limits, retry_policy
from warcgen import html_page, write_warc

from crawlplan.extract.records import process_warc_file
from crawlplan.warc import addresses, attempts, transports
from crawlplan.warc.addresses import forbidden_address
from crawlplan.warc.remote import Clock, Unreachable, open_stream, read_range

NAME = "pages.warc.gz"
# fast retries; the servers are on 127.0.0.1, hence allow_private_addresses where a read must work
FAST = dict(backoff_s=0.01, backoff_max_s=0.05, read_timeout_s=2.0, max_attempts=10)
LOOPBACK = retry_policy(**FAST, allow_private_addresses=True)


class FakeClock:
    def __init__(self):
        self.t = 0.0

    def now(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.t += seconds

    def clock(self) -> Clock:
        return Clock(self.now, self.sleep)


class _FakeBody:
    """``per_read`` bytes per read, each read taking ``seconds`` of the fake clock; never ends."""

    def __init__(self, clock: FakeClock, per_read: int, seconds: float):
        self.clock, self.per_read, self.seconds = clock, per_read, seconds

    def read(self, n: int) -> bytes:
        self.clock.t += self.seconds
        return b"x" * min(n, self.per_read)

    def close(self) -> None:
        pass


def _fake_server(monkeypatch, clock: FakeClock, per_read: int, seconds: float, size: int = 1 << 30):
    requests = []

    def get(path, start, end, policy):
        requests.append(start)
        length = None if size is None else size - start
        return transports.Response(_FakeBody(clock, per_read, seconds), start, size, length, '"v1"')

    monkeypatch.setattr(transports, "http_get", get)
    return requests


def _drain(stream) -> int:
    got = 0
    while chunk := stream.read(1 << 16):
        got += len(chunk)
    return got


def test_a_one_byte_per_second_trickle_is_cut_each_window_and_given_up_after_the_attempts(monkeypatch):
    fake = FakeClock()
    requests = _fake_server(monkeypatch, fake, per_read=1, seconds=1.0)
    monkeypatch.setattr(attempts.random, "uniform", lambda low, high: high)     # the longest jittered wait
    policy = retry_policy(max_attempts=4, backoff_s=1.0, backoff_max_s=8, throughput_window_s=60,
                          min_bytes_per_s=1024, file_deadline_s=3600, max_retry_s=900)
    with open_stream("https://example.org/a.warc.gz", policy, clock=fake.clock()) as stream:
        got = _drain(stream)
        assert not stream.complete() and "min_bytes_per_s=1024" in stream.failure and "after 4 attempts" in stream.failure
    # 60 bytes per 60 s window, then cut; each resume starts at the last byte delivered
    assert requests == [0, 60, 120, 180] and got == 240
    assert fake.t == 4 * 60 + (1 + 2 + 4)                          # four windows and three waits of 1, 2, 4 s


def test_the_file_deadline_bounds_retries_and_waits_together(monkeypatch):
    fake = FakeClock()
    requests = _fake_server(monkeypatch, fake, per_read=1, seconds=1.0)
    policy = retry_policy(max_attempts=1000, backoff_s=5.0, backoff_max_s=5.0, throughput_window_s=10,
                          min_bytes_per_s=100, file_deadline_s=100, max_retry_s=10_000)
    with open_stream("https://example.org/a.warc.gz", policy, clock=fake.clock()) as stream:
        _drain(stream)
        assert "remote.file_deadline_s=100" in stream.failure
    assert 2 < len(requests) < 1000
    assert fake.t <= 100 + policy.backoff_max_s + 1               # the bound plus one backoff (and one read)


def test_an_endless_fast_body_ends_at_the_deadline(monkeypatch):
    fake = FakeClock()
    _fake_server(monkeypatch, fake, per_read=1 << 20, seconds=1.0, size=None)   # no length: it never ends
    policy = retry_policy(file_deadline_s=50, throughput_window_s=10, min_bytes_per_s=1024)
    with open_stream("https://example.org/a.warc.gz", policy, clock=fake.clock()) as stream:
        got = _drain(stream)
        assert "remote.file_deadline_s=50" in stream.failure and not stream.complete()
    assert got == 50 << 20 and fake.t == 50


class _FakeFile(_FakeBody):
    """The bytes of ``data`` from ``start``, ``per_read`` per read, each read taking ``seconds``."""

    def __init__(self, clock: FakeClock, data: bytes, start: int, per_read: int, seconds: float):
        super().__init__(clock, per_read, seconds)
        self.data, self.at = data, start

    def read(self, n: int) -> bytes:
        self.clock.t += self.seconds
        chunk = self.data[self.at:self.at + min(n, self.per_read)]
        self.at += len(chunk)
        return chunk


@pytest.mark.parametrize("per_read,deadline_s", [(97, 3), (97, 7), (97, 11), (97, 19), (97, 29),
                                                 (1, 1), (1, 5), (1, 80), (1, 120), (1, 300), (1, 500)])
@pytest.mark.parametrize("reader_name", ["warcio", "fastwarc"])
def test_a_file_cut_by_the_deadline_inside_a_record_is_truncated_not_corrupt(monkeypatch, tmp_path, per_read,
                                                                             deadline_s, reader_name):
    """Wherever the deadline falls (inside a gzip member, a header, a body), the file is ``truncated``
    with the deadline named, and every record before the cut is kept. Reads of one byte are a
    trickling server's: warcio's first buffer then holds one decompressed byte (``W``)."""
    from crawlplan.warc import reader

    data = write_warc(tmp_path / NAME, [dict(url=f"http://a.example.com/p{i}", body=html_page(f"p{i}", 200))
                                        for i in range(8)]).read_bytes()
    fake = FakeClock()

    def get(path, start, end, policy):
        return transports.Response(_FakeFile(fake, data, start, per_read, 1.0), start, len(data), len(data) - start,
                                   '"v1"')

    monkeypatch.setattr(transports, "http_get", get)
    monkeypatch.setattr(reader, "open_stream", lambda path, policy: open_stream(path, policy, clock=fake.clock()))
    policy = retry_policy(file_deadline_s=deadline_s, throughput_window_s=1000, min_bytes_per_s=1)
    outcome = reader.FileOutcome(warc_file=f"https://example.org/{NAME}")
    records = list(reader.iter_records(outcome.warc_file, outcome, remote=policy, reader=reader_name, limits=read_limits()))
    assert outcome.status == "truncated" and f"remote.file_deadline_s={deadline_s}" in outcome.error
    assert deadline_s * per_read < len(data) and len(records) == outcome.records
    urls, expected = [r.url for r in records], [f"http://a.example.com/p{i}" for i in range(len(records))]
    assert urls[:-1] == expected[:-1] and urls[-1:] in (expected[-1:], [None])   # the cut one may lack its URI
    # the same file, a byte or 97 per read without a deadline: whole, every record, both readers
    fake.t = 0.0
    whole = reader.FileOutcome(warc_file=outcome.warc_file)
    unbounded = retry_policy(file_deadline_s=10**9, throughput_window_s=10**9, min_bytes_per_s=1e-6)
    assert len(list(reader.iter_records(whole.warc_file, whole, remote=unbounded, reader=reader_name, limits=read_limits()))) == 8
    assert whole.status == "ok", whole.error


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bounded")
    write_warc(folder / NAME, [dict(url=f"http://a.example.com/p{i}", body=html_page(f"p{i}", 200)) for i in range(20)])
    with FaultServer(root=str(folder)) as server:
        yield server, (folder / NAME).read_bytes()


@pytest.fixture()
def server(served):
    served[0].reset()
    return served[0]


@pytest.mark.slow   # waits out a trickle: 3 s
def test_a_trickling_server_is_truncated_within_its_bounds(server):
    server.faults({f"/{NAME}": [{"trickle": 10, "delay_s": 0.2, "repeat": True}]})     # 50 bytes/s
    policy = retry_policy(**FAST, allow_private_addresses=True, throughput_window_s=1, min_bytes_per_s=100,
                          file_deadline_s=3)
    settings = extract_settings(reader="warcio", extractor="resiliparse", language_id="none")
    started = time.monotonic()
    rows = list(process_warc_file(f"{server.url}/{NAME}", replace(settings, remote=policy)))
    wall = time.monotonic() - started
    file_row = rows[-1]
    assert file_row["file_status"] == "truncated" and "remote.file_deadline_s=3" in file_row["error"]
    assert "min_bytes_per_s=100" in file_row["last_error"] and file_row["attempts"] >= 2
    resumes = [e["range"] for e in server.log() if e["path"] == f"/{NAME}"][1:]
    assert resumes and all(r.startswith("bytes=") for r in resumes)
    assert wall < 30                                                 # generous: the bound is 3 s


def test_an_endless_answer_is_cut_at_the_deadline(server):
    server.faults({f"/{NAME}": [{"endless": True}]})
    policy = retry_policy(**FAST, allow_private_addresses=True, file_deadline_s=1)
    with open_stream(f"{server.url}/{NAME}", policy) as stream:
        got = _drain(stream)
        assert "remote.file_deadline_s=1" in stream.failure and not stream.complete()
    assert got > 0


@pytest.mark.parametrize("address,why", [
    ("169.254.169.254", "link-local"), ("fd00:ec2::254", "private"), ("127.0.0.1", "loopback"),
    ("127.1.2.3", "loopback"), ("10.0.0.1", "private"), ("172.16.5.4", "private"), ("192.168.0.1", "private"),
    ("::1", "loopback"), ("fc00::1", "private"), ("fe80::1", "link-local"), ("100.64.0.1", "not global"),
    ("0.0.0.0", "unspecified"), ("::ffff:169.254.169.254", "link-local"), ("8.8.8.8", None),
    ("2606:4700:4700::1111", None)])
def test_which_addresses_are_refused(address, why):
    assert forbidden_address(address) == why


def test_a_loopback_url_is_refused_without_the_setting_before_any_request(server, served):
    for host in ("127.0.0.1", "localhost"):
        url = f"http://{host}:{server.port}/{NAME}"
        with pytest.raises(Unreachable) as err:
            open_stream(url, retry_policy(**FAST))
        assert "loopback" in str(err.value) and "allow_private_addresses" in str(err.value)
        assert err.value.attempts == 1                              # refused, not retried
    assert server.log() == []                                        # no request reached the server
    assert read_range(f"{server.url}/{NAME}", 0, 100, LOOPBACK) == served[1][:100]


def test_redirects_stay_in_the_origin(server, served):
    data = served[1]
    server.faults({"/moved.warc.gz": [{"redirect": f"/{NAME}", "code": 301}]})
    assert read_range(f"{server.url}/moved.warc.gz", 10, 50, LOOPBACK) == data[10:60]     # Range kept
    elsewhere = f"http://localhost:{server.port}/{NAME}"          # the same server under another host name
    server.faults({"/away.warc.gz": [{"redirect": elsewhere}]})
    with pytest.raises(Unreachable, match="another host"):
        open_stream(f"{server.url}/away.warc.gz", LOOPBACK)
    server.faults({"/away.warc.gz": [{"redirect": elsewhere}]})
    assert read_range(f"{server.url}/away.warc.gz", 0, 20, retry_policy(**FAST, allow_private_addresses=True,
                                                                         same_host_redirects=False)) == data[:20]
    server.faults({"/loop.warc.gz": [{"redirect": "/loop.warc.gz", "repeat": True}]})
    with pytest.raises(Unreachable, match="remote.max_redirects=5"):
        open_stream(f"{server.url}/loop.warc.gz", LOOPBACK)
    assert len([e for e in server.log() if e["path"] == "/loop.warc.gz"]) == 6


def test_every_redirect_hop_is_checked_before_connecting(server, monkeypatch):
    # 127.0.0.1 stands for a public address here, 127.0.0.2 for the metadata service
    monkeypatch.setattr(addresses, "forbidden_address", lambda a: "metadata" if a == "127.0.0.2" else None)
    server.faults({"/hop.warc.gz": [{"redirect": f"http://127.0.0.2:{server.port}/{NAME}"}]})
    with pytest.raises(Unreachable) as err:
        open_stream(f"{server.url}/hop.warc.gz", retry_policy(**FAST, same_host_redirects=False))
    assert "127.0.0.2 (metadata)" in str(err.value) and err.value.attempts == 1
    assert [e["path"] for e in server.log()] == ["/hop.warc.gz"]

