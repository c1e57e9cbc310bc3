"""The CLI answers fast because the light verbs load no heavy library: checked by the modules a
fresh interpreter holds after the verb, not by timing (docs/tests.md has the measured seconds)."""

import subprocess
import sys

import pytest

HEAVY = ("pyspark", "pandas", "scipy", "matplotlib", "sklearn", "torch", "trafilatura", "lxml")

PROBE = """
import contextlib, io, sys
from crawlplan.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        code = main(sys.argv[1:])
    except SystemExit as exc:   # --help exits
        code = exc.code
print(f"code={code}")
print("loaded=" + ",".join(sorted({m.split(".")[0] for m in sys.modules} & set(%r))))
""" % (HEAVY,)  # noqa: UP031  (the probe holds braces of its own)


@pytest.mark.parametrize("argv", [["--help"], ["pipeline", "show"], ["models", "list"],
                                  ["export", "budgets", "--help"], ["submit", "--help"]])
def test_a_light_verb_loads_no_heavy_library(argv):
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, timeout=120)
    code, loaded = done.stdout.splitlines()[-2:]
    assert code in ("code=0", "code=None"), done.stderr
    assert loaded == "loaded=", f"crawlplan {' '.join(argv)} imported {loaded}"


def test_every_verb_named_by_a_parser_exists():
    """Parsers name their verbs as strings: each must resolve to a function."""
    from crawlplan.cli import _subparsers, build_parser, verb

    named = {p.get_default("func") for p in _subparsers(build_parser())} - {None}
    assert len(named) >= 15
    for func in named:
        assert callable(verb(func)), func
