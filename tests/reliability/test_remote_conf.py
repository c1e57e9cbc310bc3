"""The retry policy always comes from the run's conf: an override of a ``remote.*`` key reaches the
read path (the extract settings, the source CLI's mirrors), and a remote read without a policy is an
error, never a silent fall back to conf/defaults.yaml."""

from __future__ import annotations

from collections import Counter

import pytest
from faultserver import FaultServer
from settings_support import read_limits
from test_source_synth import forum_pages, write_warc

from crawlplan.cli import main as cli_main
from crawlplan.conf import load_conf, section
from crawlplan.extract.records import ExtractSettings
from crawlplan.source.mirror import read_site_pages
from crawlplan.warc import attempts, remote
from crawlplan.warc.reader import FileOutcome, iter_records
from crawlplan.warc.remote import RetryPolicy, open_stream

NAME = "forum.warc.gz"
# the server is on 127.0.0.1; two requests per file instead of the default ten, no real waits
OVERRIDES = ["remote.max_attempts=2", "remote.allow_private_addresses=true", "remote.backoff_s=0.01",
             "remote.backoff_max_s=0.01"]


@pytest.fixture(scope="module")
def http(tmp_path_factory):
    folder = tmp_path_factory.mktemp("served")
    write_warc(folder / NAME, forum_pages())
    with FaultServer(root=folder) as server:
        yield server


@pytest.fixture()
def failing(http, monkeypatch):
    """Every request for the file answers 503: a read makes exactly max_attempts requests."""
    monkeypatch.setattr(attempts, "retry_sleep", lambda s: None)
    http.reset()
    http.faults({f"/{NAME}": [{"status": 503, "repeat": True}]})
    return http


def _requests(server) -> int:
    return sum(1 for e in server.log() if e["path"] == f"/{NAME}")


def test_there_is_no_default_policy_and_a_remote_read_needs_one():
    assert not hasattr(remote, "default_policy")
    with pytest.raises(ValueError, match="RetryPolicy"):
        open_stream("http://127.0.0.1:9/x.warc.gz")
    with pytest.raises(TypeError):
        ExtractSettings.from_params(section(load_conf(), "extract"), check_packages=False)   # remote= required


def test_an_override_of_remote_reaches_the_extract_read_path(failing):
    conf = load_conf("local", overrides=OVERRIDES)
    settings = ExtractSettings.from_params(section(conf, "extract"), check_packages=False,
                                           remote=section(conf, "remote"))
    assert settings.remote.max_attempts == 2 and settings.remote.allow_private_addresses
    defaults = RetryPolicy.from_params(section(load_conf(), "remote"))
    assert defaults.max_attempts == 10 and not defaults.allow_private_addresses    # what an override must beat
    outcome = FileOutcome(f"{failing.url}/{NAME}")
    assert list(iter_records(outcome.warc_file, outcome, limits=settings.limits, remote=settings.remote)) == []
    assert (outcome.status, outcome.attempts) == ("unreachable", 2)
    assert _requests(failing) == 2


def test_an_override_of_remote_reaches_the_source_cli(failing, tmp_path, capsys):
    """``crawlplan sitemap --set remote.*`` reads its WARC files with the overridden policy."""
    code = cli_main(["sitemap", "--warc", f"{failing.url}/{NAME}", "--out", str(tmp_path / "out"),
                     *[arg for item in OVERRIDES for arg in ("--set", item)]])
    assert code == 2 and "no site with" in capsys.readouterr().err   # the file was unreachable
    assert _requests(failing) == 2                    # max_attempts=2, not the default 10
    rejects = Counter()
    assert read_site_pages([f"{failing.url}/{NAME}"], rejects=rejects, limits=read_limits(),
                           remote=RetryPolicy.from_params(section(load_conf("local", overrides=OVERRIDES),
                                                                  "remote"))) == {}
    assert rejects["file_unreachable"] == 1 and _requests(failing) == 4
    with pytest.raises(ValueError, match="RetryPolicy"):        # a remote file without the run's policy
        read_site_pages([f"{failing.url}/{NAME}"], limits=read_limits())
