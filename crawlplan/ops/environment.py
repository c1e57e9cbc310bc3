"""``crawlplan package --venv``: a lean, relocatable environment archive for ``--archives``.

What it holds: crawlplan's runtime dependency closure and nothing else. The closure is walked
from the ``dependencies`` of ``pyproject.toml`` (no extras: no test, bench or connect packages)
through each installed distribution's ``Requires-Dist`` (``importlib.metadata``, markers
evaluated for the environment's Python), and each distribution is packed from the files its
``RECORD`` lists under site-packages, not the whole folder. pyspark and py4j are left out (the
cluster's Spark brings its own, matching its JVM), and so are pip, setuptools and wheel.

Why a launcher and not a copied interpreter: a virtual environment's ``bin/python`` is a link to
the building machine's interpreter (pyenv, a distribution's /usr/bin, conda), which is not on the
nodes; and those interpreters are not relocatable builds (absolute prefix compiled in, shared
libpython found through an absolute rpath), so copying one is no fix either. What *is* portable
is the packages: every compiled extension in the closure must be a manylinux wheel for the
environment's CPython X.Y (checked here; packaging fails with the distribution and its tags
otherwise), which runs on any x86_64/aarch64 glibc Linux with a new enough glibc and a CPython
of the same minor version. So ``bin/python`` is a small POSIX shell launcher: it finds a
``pythonX.Y`` on the node (``$CRAWLPLAN_NODE_PYTHON`` when set, otherwise ``pythonX.Y`` on PATH,
/usr/bin, /usr/local/bin, /opt/conda/bin, then ``python3``), checks its version, machine and glibc,
and runs it with the archive's site-packages first on ``PYTHONPATH`` (so the archive's lxml,
numpy ... win over any the node has). When no interpreter qualifies it exits 127 with a message
naming the requirement and what it tried. The requirement is also in ``crawlplan-env.json`` at the
archive's root (and next to it), and ``crawlplan package`` prints it.
"""

from __future__ import annotations

import io
import json
import os
import re
import tarfile
import tomllib
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path, PurePosixPath

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

# Never shipped: Spark brings its own pyspark (and py4j), the rest are installers.
EXCLUDED = frozenset({"pyspark", "py4j", "pip", "setuptools", "wheel", "crawlplan"})
_PURE_TAG = re.compile(r"^py\d*(\.py\d*)*-none-any$")
_MANYLINUX = re.compile(r"^manylinux(?:_(\d+)_(\d+)|(1|2010|2014))_(x86_64|aarch64)$")
_LEGACY_GLIBC = {"1": (2, 5), "2010": (2, 12), "2014": (2, 17)}


class PackError(RuntimeError):
    """The environment cannot be packed into a portable archive; the message says why."""


@dataclass(frozen=True)
class NodeRequirement:
    python: str                 # "3.11"
    machine: str                # "x86_64"
    glibc: tuple[int, int]      # the newest glibc any packed wheel needs

    def text(self) -> str:
        return (f"CPython {self.python} on {self.machine} Linux with glibc >= {self.glibc[0]}.{self.glibc[1]} "
                f"(python{self.python} on PATH, in /usr/bin, /usr/local/bin or /opt/conda/bin, or $CRAWLPLAN_NODE_PYTHON)")


def _site_packages(venv: Path) -> Path:
    found = sorted(venv.glob("lib/python3*/site-packages"))
    if not found:
        raise FileNotFoundError(f"{venv} is not a virtual environment (no lib/python3*/site-packages)")
    return found[0]


def runtime_requirements(repo: Path) -> list[str]:
    return list(tomllib.loads((repo / "pyproject.toml").read_text())["project"]["dependencies"])


def closure(requirements: list[str], site: Path, python: str) -> dict[str, metadata.Distribution]:
    """name -> distribution for every package ``requirements`` need at run time, recursively."""
    installed: dict[str, metadata.Distribution] = {}
    for dist in metadata.distributions(path=[str(site)]):
        installed.setdefault(canonicalize_name(dist.metadata["Name"]), dist)
    env = {**default_environment(), "python_version": python}
    seen: dict[str, set[str]] = {}
    # a requirement enters the list only when its marker holds (for the extras asked of its parent)
    todo = [(req, "crawlplan") for req in map(Requirement, requirements)
            if req.marker is None or req.marker.evaluate({**env, "extra": ""})]
    while todo:
        req, needed_by = todo.pop()
        name = canonicalize_name(req.name)
        if name in EXCLUDED:
            continue
        if name not in installed:
            raise PackError(f"{req.name} (needed by {needed_by}) is not installed in {site}")
        extras = set(req.extras)
        if name in seen and extras <= seen[name]:
            continue
        seen[name] = seen.get(name, set()) | extras
        for line in installed[name].requires or []:
            sub = Requirement(line)
            if sub.marker is None or any(sub.marker.evaluate({**env, "extra": e}) for e in seen[name] | {""}):
                todo.append((sub, name))
    return {name: installed[name] for name in sorted(seen)}


def runtime_pins(repo: Path, venv: Path) -> str:
    """``requirements.txt``: ``name==version`` of the runtime closure installed in ``venv`` (no
    pyspark or py4j, no extras): what a cluster image installs beside the wheel."""
    site = _site_packages(venv)
    python = site.parent.name.removeprefix("python")
    dists = closure(runtime_requirements(repo), site, python)
    return "".join(f"{d.metadata['Name']}=={d.version}\n" for d in dists.values())


def _tags(dist: metadata.Distribution) -> list[str]:
    return [line.split(":", 1)[1].strip() for line in (dist.read_text("WHEEL") or "").splitlines()
            if line.startswith("Tag:")]


def _portable(tag: str, python: str) -> tuple[str, tuple[int, int]] | None:
    """(machine, minimum glibc) when ``tag`` runs on other Linux nodes with CPython ``python``."""
    interp, abi, plat = tag.split("-")
    major, minor = python.split(".")
    ours = f"cp{major}{minor}"
    if not (interp == ours and abi in (ours, "abi3", "none")) and not (
            abi == "abi3" and interp.startswith(f"cp{major}") and int(interp[3:] or 0) <= int(minor)) and not (
            interp.startswith("py") and abi == "none"):
        return None
    m = _MANYLINUX.match(plat)
    if not m:
        return None
    glibc = (int(m.group(1)), int(m.group(2))) if m.group(1) else _LEGACY_GLIBC[m.group(3)]
    return m.group(4), glibc


def check_portable(dists: dict[str, metadata.Distribution], python: str) -> NodeRequirement:
    """Every distribution pure Python or a manylinux wheel for this CPython; the node requirement."""
    problems, machines, glibc = [], set(), (2, 5)
    for name, dist in dists.items():
        tags = _tags(dist)
        if not tags:
            problems.append(f"{name} {dist.version}: not installed from a wheel (no WHEEL tags), so its "
                            f"build cannot be checked")
            continue
        if any(_PURE_TAG.match(t) for t in tags):
            continue
        fits = [p for p in (_portable(t, python) for t in tags) if p]
        if not fits:
            problems.append(f"{name} {dist.version}: tags {', '.join(tags)} are not a manylinux wheel for "
                            f"CPython {python} (built for this machine only)")
            continue
        machines.add(fits[0][0])
        glibc = max(glibc, min(g for _, g in fits))
    if len(machines) > 1:
        problems.append(f"wheels for several machines: {sorted(machines)}")
    if problems:
        raise PackError("the environment is not portable to other nodes:\n  " + "\n  ".join(problems)
                                + "\nreinstall those from manylinux wheels (pip install --only-binary :all:), "
                                  "or build the cluster image from requirements.txt instead")
    return NodeRequirement(python=python, machine=machines.pop() if machines else os.uname().machine, glibc=glibc)


def packed_files(dist: metadata.Distribution, site: Path) -> list[tuple[Path, str]]:
    """(file, path under site-packages) for each file of the distribution's RECORD."""
    if dist.files is None:
        raise PackError(f"{dist.metadata['Name']} has no RECORD: its files are unknown")
    out = []
    for f in dist.files:
        rel = PurePosixPath(f.as_posix())
        if ".." in rel.parts or "__pycache__" in rel.parts or rel.suffix in (".pyc", ".pyo"):
            continue  # scripts in bin/, manuals in share/, bytecode compiled on the node
        if rel.suffix == ".pth":
            raise PackError(f"{dist.metadata['Name']} installs {rel}: .pth files do not run from "
                                    f"PYTHONPATH, where the launcher puts the archive's packages")
        path = site / rel
        if path.is_file():
            out.append((path, rel.as_posix()))
    return out


LAUNCHER = r'''#!/bin/sh
# crawlplan environment (crawlplan package --venv): CPython @PY@ packages, no interpreter.
# Runs this node's python@PY@ with the archive's site-packages first on PYTHONPATH.
# Needs: @REQ@.
here=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd -P) || exit 1
if [ -n "${CRAWLPLAN_NODE_PYTHON:-}" ]; then
  candidates=$CRAWLPLAN_NODE_PYTHON
else
  candidates="python@PY@ /usr/bin/python@PY@ /usr/local/bin/python@PY@ /opt/conda/bin/python@PY@ python3 /usr/bin/python3"
fi
probe='import os, platform, sys
g = tuple(int(x) for x in (os.confstr("CS_GNU_LIBC_VERSION") or "glibc 0.0").split()[1].split(".")[:2])
print("%d.%d %s glibc %d.%d" % (sys.version_info[:2] + (platform.machine(),) + g))
sys.exit(0 if "%d.%d" % sys.version_info[:2] == "@PY@" and platform.machine() == "@MACHINE@" and g >= (@GLIBC@) else 3)'
found=""
tried=""
for py in $candidates; do
  case $py in
    */*) [ -x "$py" ] || { tried="$tried; $py: missing"; continue; } ;;
    *) py=$(command -v "$py" 2>/dev/null) || continue ;;
  esac
  [ "$(cd "$(dirname "$py")" && pwd -P)" = "$here/bin" ] && continue  # not this launcher again
  if got=$("$py" -c "$probe" 2>/dev/null); then found=$py; break; fi
  tried="$tried; $py: ${got:-does not run}"
done
if [ -z "$found" ]; then
  echo "crawlplan environment $here: no usable Python on this node (needs @REQ_SH@); tried${tried:-: nothing found}" >&2
  exit 127
fi
CRAWLPLAN_ENVIRONMENT=$here
PYTHONPATH="$here/@SITE@${PYTHONPATH:+:$PYTHONPATH}"
export CRAWLPLAN_ENVIRONMENT PYTHONPATH
exec "$found" "$@"
'''


def launcher(req: NodeRequirement, site_rel: str) -> str:
    text = req.text()
    return (LAUNCHER.replace("@PY@", req.python).replace("@MACHINE@", req.machine)
            .replace("@GLIBC@", f"{req.glibc[0]}, {req.glibc[1]}").replace("@SITE@", site_rel)
            .replace("@REQ_SH@", text.replace("$", "\\$")).replace("@REQ@", text))  # _SH: inside "..."


def _add_bytes(tar: tarfile.TarFile, name: str, data: bytes, mode: int) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mode, info.mtime = len(data), mode, 315532800
    tar.addfile(info, io.BytesIO(data))


def build_env_archive(venv: Path, out_dir: Path, repo: Path) -> Path:
    """``crawlplan-env.tar.gz``: ``bin/python`` (the launcher), ``lib/pythonX.Y/site-packages``
    (the closure's files), ``crawlplan-env.json`` (what it holds and needs). Unpacked by Spark as
    ``./environment`` and used with ``spark.pyspark.python=./environment/bin/python``."""
    site = _site_packages(venv)
    python = site.parent.name.removeprefix("python")
    dists = closure(runtime_requirements(repo), site, python)
    req = check_portable(dists, python)
    site_rel = f"lib/python{python}/site-packages"
    manifest = {"python": python, "machine": req.machine, "glibc": ".".join(map(str, req.glibc)),
                "requires": req.text(), "distributions": {n: d.version for n, d in dists.items()}}
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / "crawlplan-env.tar.gz"
    tmp = target.with_suffix(".tmp")
    with tarfile.open(tmp, "w:gz", compresslevel=6, dereference=True) as tar:
        script = launcher(req, site_rel).encode()
        for name in ("bin/python", "bin/python3"):
            _add_bytes(tar, name, script, 0o755)
        _add_bytes(tar, "crawlplan-env.json", (json.dumps(manifest, indent=1) + "\n").encode(), 0o644)
        for dist in dists.values():
            for path, rel in packed_files(dist, site):
                tar.add(path, arcname=f"{site_rel}/{rel}", recursive=False)
    os.replace(tmp, target)
    (out_dir / "crawlplan-env.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return target


def describe_requirement(archive: Path) -> str:
    """One line: how many distributions the archive holds and what the nodes need (from the
    ``crawlplan-env.json`` written next to it)."""
    side = archive.with_name("crawlplan-env.json")
    manifest = json.loads(side.read_text()) if side.is_file() else {}
    return f"{len(manifest.get('distributions', {}))} distributions; nodes need {manifest.get('requires', '?')}"
