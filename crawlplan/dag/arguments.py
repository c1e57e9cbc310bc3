"""The arguments every running verb and job entry shares, and how their errors read.

Apart from ``crawlplan.dag.entry`` (which loads the runner and Spark) so that a verb's parser
can use them without loading either: ``crawlplan --help`` stays under a second."""

from __future__ import annotations

import argparse
import logging
import sys

from crawlplan.conf import ConfError

_EXPECTED_ERRORS: tuple[type[BaseException], ...] = (ConfError, FileNotFoundError, KeyError, ValueError)


def friendly_errors(fn) -> int:
    """Expected user errors print one clear line instead of a traceback (every verb and job entry)."""
    try:
        return int(fn() or 0)
    except KeyboardInterrupt:
        print("crawlplan: interrupted", file=sys.stderr)
        return 130
    except _EXPECTED_ERRORS as exc:
        if logging.getLogger().isEnabledFor(logging.DEBUG):
            raise
        msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"crawlplan: error: {msg}", file=sys.stderr)
        return 2


def add_conf_arguments(parser: argparse.ArgumentParser) -> None:
    """The config layers every running verb takes: --conf FILE, --profile, --set key=value."""
    parser.add_argument("--conf", metavar="FILE", help="user config file layered over the profile")
    parser.add_argument("--profile", default="local", help="config profile: local (default) or cluster")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="overrides",
                        help="override one config key, e.g. --set extract.extractor=resiliparse")
    parser.add_argument("--remote", metavar="sc://HOST:PORT",
                        help="run through this Spark Connect server (also SPARK_REMOTE, or spark.remote in the conf)")


def conf_overrides(args: argparse.Namespace) -> list[str]:
    """The ``--set`` items of a running verb, with what its own flags stand for (``--remote``,
    ``--retry-failed``) added."""
    overrides = list(args.overrides)
    if getattr(args, "remote", None):
        overrides.append(f"spark.remote={args.remote}")
    if getattr(args, "retry_failed", False):
        overrides.append("run.retry_failed=true")
    return overrides


def add_job_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--input", action="append", default=[], metavar="PATH",
                        help="input path(s): a WARC path listing or glob for extract, "
                             "or a folder holding upstream datasets; repeatable")
    parser.add_argument("--output", required=True, metavar="DIR", help="output folder (datasets go to DIR/<name>)")
    add_conf_arguments(parser)
    parser.add_argument("--pipeline", default="main", help="pipeline that defines the node (default main)")
    parser.add_argument("--force", action="store_true",
                        help="run even when the node's completion marker under --output is current")
    parser.add_argument("--with-upstream", action="store_true",
                        help="first run every node upstream of this one in the same Spark application, each "
                             "skipped when its marker is current (what `crawlplan submit --one-application` uses)")
    parser.add_argument("--retry-failed", action="store_true",
                        help="extract only: re-read just the WARC files whose warc_files status under --output "
                             "is not ok and merge them into the outputs there")


