"""docker/Dockerfile, the Spark-on-Kubernetes image, checked statically: there is no Docker engine
where this was written, so `docker build` was not run (docs/cluster.md, section --target k8s).

What is checked: the base is the official `spark` image with Python; crawlplan goes in with
`--no-deps` after the pins of `crawlplan package`'s requirements.txt, which hold no pyspark; the
paths the image has are the ones `--target k8s` prints (local:///opt/crawlplan/jobs, the venv's
Python as the pods' Python); and the k8s section of docs/cluster.md shows the golden command."""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

from crawlplan.ops.environment import runtime_pins

REPO = Path(__file__).resolve().parents[1]
DOCKERFILE = (REPO / "docker" / "Dockerfile").read_text()
GOLDEN_K8S = (REPO / "tests" / "golden" / "submit" / "k8s.sh").read_text()


def _instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, argument) with continuation lines joined and comments dropped."""
    text = re.sub(r"\\\n\s*", " ", "\n".join(ln for ln in DOCKERFILE.splitlines() if not ln.lstrip().startswith("#")))
    return [(m.group(1).upper(), m.group(2).strip()) for m in re.finditer(r"^(\w+)\s+(.*)$", text, re.M)]


def test_base_is_the_official_spark_python_image():
    steps = _instructions()
    arg = dict(a.split("=", 1) for k, a in steps if k == "ARG" and "=" in a)
    froms = [a for k, a in steps if k == "FROM"]
    assert froms == ["${SPARK_IMAGE}"]
    image = arg["SPARK_IMAGE"]
    assert re.fullmatch(r"spark:4\.\d+\.\d+-scala2\.13-java17-python3-ubuntu", image), image


def test_crawlplan_is_installed_without_pyspark():
    runs = [a for k, a in _instructions() if k == "RUN"]
    installs = [r for r in runs if "pip install" in r]
    assert len(installs) == 2, installs
    assert "-r /opt/crawlplan/requirements.txt" in installs[0]
    assert "--no-deps /opt/crawlplan/crawlplan-*-py3-none-any.whl" in installs[1]
    assert '! /opt/crawlplan/venv/bin/python -c "import pyspark"' in installs[1]     # the build fails otherwise
    assert not re.search(r"pip install[^&;]*\bpyspark\b", " ".join(runs))
    # the pins the image installs: crawlplan's runtime closure, no pyspark or py4j
    pins = {line.split("==")[0].lower() for line in runtime_pins(REPO, Path(sys.prefix)).splitlines()}
    assert "lxml" in pins and not {"pyspark", "py4j"} & pins
    # the venv's Python is the minor version the project's pins are built for
    python = re.search(r"python(3\.\d+) -m venv /opt/crawlplan/venv", " ".join(runs)).group(1)
    assert python == f"{sys.version_info[0]}.{sys.version_info[1]}"
    assert tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["requires-python"] == f">={python}"


def test_the_image_has_what_the_k8s_command_names():
    steps = _instructions()
    copies = [a for k, a in steps if k == "COPY"]
    assert "jobs /opt/crawlplan/jobs" in copies
    assert "local:///opt/crawlplan/jobs/extract.py" in GOLDEN_K8S and "--py-files" not in GOLDEN_K8S
    env = " ".join(a for k, a in steps if k == "ENV")
    assert "PYSPARK_PYTHON=/opt/crawlplan/venv/bin/python" in env
    assert "PYSPARK_DRIVER_PYTHON=/opt/crawlplan/venv/bin/python" in env
    assert [a for k, a in steps if k == "USER"][-1] == "spark"


def test_docs_show_the_k8s_command_as_printed():
    docs = (REPO / "docs" / "cluster.md").read_text()
    section = docs.split("### --target k8s", 1)[1].split("\n### ", 1)[0]
    block = GOLDEN_K8S.split("# [1/11] extract\n", 1)[1].split("\n\n", 1)[0]
    assert block in section, "docs/cluster.md's k8s section must show `--target k8s`'s extract as printed"
    assert "docker build -f docker/Dockerfile" in section
