"""Operations without a cluster: spark-submit lines, the Airflow DAG text, the wheel, the docs."""

from __future__ import annotations

import ast
import base64
import hashlib
import subprocess
import sys
import zipfile
from pathlib import Path

import pyspark
import pytest

from crawlplan.conf import load_conf
from crawlplan.dag.pipeline import load_pipeline
from crawlplan.ops import submit
from crawlplan.ops.airflow import render_dag
from crawlplan.ops.docs import render_datasets
from crawlplan.ops.package import build_wheel, package

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def pipeline():
    return load_pipeline("main")


def test_submit_commands_follow_the_dependency_order(pipeline):
    spec = submit.SubmitSpec.from_conf(load_conf("cluster"), "conf/my-run.yaml")
    cmds = submit.commands(spec, pipeline)
    names = [n for n, _ in cmds]
    assert names == pipeline.order()
    for i, name in enumerate(names):
        assert set(pipeline.dependencies(name)) <= set(names[:i])
    by_node = dict(cmds)
    extract = by_node["extract"]
    assert extract[:3] == ["spark-submit", "--master", "yarn"]
    assert extract[extract.index("--py-files") + 1].endswith("-py3-none-any.zip")
    assert "--input" not in extract  # external inputs come from the config, never --input
    app = extract.index("jobs/extract.py")
    assert extract[app + 1:] == ["--output", "out", "--conf", "my-run.yaml", "--profile", "cluster"]
    assert extract[extract.index("--files") + 1] == "conf/my-run.yaml"  # cluster mode ships the conf
    classify = by_node["classify"]
    assert classify[classify.index("jobs/classify.py") + 1:][:4] == ["--input", "out", "--output", "out"]


def test_one_application_submits_the_last_node_with_its_upstream(pipeline, capsys):
    from crawlplan.cli import main

    spec = submit.SubmitSpec.from_conf(load_conf("cluster"), "conf/my-run.yaml")
    cmds = submit.commands(spec, pipeline, one_application=True)
    assert [n for n, _ in cmds] == pipeline.last() == ["report"]
    assert pipeline.upstream(pipeline.last()) == pipeline.order()      # report's upstream is the whole DAG
    assert cmds[0][1] == submit.command(spec, pipeline, pipeline.nodes["report"]) + ["--with-upstream"]
    assert main(["submit", "main", "--one-application", "--only", "extract"]) == 2
    assert "give one of them" in capsys.readouterr().err
    # the inputs the upstream nodes need are checked before the one application starts
    assert main(["submit", "main", "--run", "--one-application", "--set", "ops.spark_submit=/bin/true"]) == 2
    assert "inputs.warc_paths: needed by extract" in capsys.readouterr().err


def test_client_mode_env_archive_and_extra_conf(pipeline):
    conf = load_conf("cluster", overrides=["ops.deploy_mode=client", "ops.env_archive=s3a://b/env.tar.gz",
                                           "ops.code_uri=s3a://b/jobs/", "ops.out_dir=s3a://b/run1",
                                           "ops.spark_conf={spark.sql.shuffle.partitions: '400'}"])
    spec = submit.SubmitSpec.from_conf(conf, "/etc/crawlplan.yaml")
    cmd = submit.command(spec, pipeline, pipeline.nodes["report"])
    assert "s3a://b/jobs/report.py" in cmd
    assert cmd[cmd.index("--archives") + 1] == "s3a://b/env.tar.gz#environment"
    assert "spark.pyspark.python=./environment/bin/python" in cmd
    # the driver is this Python (a conf: Spark prefers spark.pyspark.python over PYSPARK_DRIVER_PYTHON),
    # and no exported PYSPARK_DRIVER_PYTHON that the conf would silently override
    assert f"spark.pyspark.driver.python={sys.executable}" in cmd
    assert submit.driver_defaults(spec, environ={}) == {}
    assert "spark.sql.shuffle.partitions=400" in cmd
    assert "--files" not in cmd and cmd[cmd.index("--conf", cmd.index("s3a://b/jobs/report.py")) + 1] == "/etc/crawlplan.yaml"
    assert cmd[cmd.index("--output") + 1] == "s3a://b/run1"


def test_cluster_mode_env_archive_runs_both_pythons_from_the_archive_and_local_mode_warns(pipeline):
    conf = load_conf("cluster", overrides=["ops.deploy_mode=cluster", "ops.env_archive=s3a://b/env.tar.gz"])
    cmd = submit.command(submit.SubmitSpec.from_conf(conf), pipeline, pipeline.nodes["report"])
    assert "spark.pyspark.python=./environment/bin/python" in cmd
    assert not any(a.startswith("spark.pyspark.driver.python") for a in cmd)
    local = load_conf("cluster", overrides=["ops.master=local[2]", "ops.env_archive=env.tar.gz"])
    found = submit.warnings_for(submit.SubmitSpec.from_conf(local), local)
    assert any("ops.env_archive with a local master" in w for w in found), found


def test_rendered_submit_script_is_valid_bash(pipeline, tmp_path):
    script = tmp_path / "submit.sh"
    script.write_text(submit.render(submit.commands(submit.SubmitSpec.from_conf(load_conf("cluster")), pipeline)))
    assert subprocess.run(["bash", "-n", str(script)]).returncode == 0
    assert script.read_text().count("spark-submit") == len(pipeline.nodes)


def _assigned_literal(tree: ast.Module, name: str):
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError(f"{name} not assigned")


def test_airflow_dag_text_mirrors_the_pipeline(pipeline, tmp_path):
    run_yaml = tmp_path / "run.yaml"
    run_yaml.write_text("inputs:\n  warc_paths: s3://cc/warc.paths.gz\nspark:\n  conf:\n    spark.x.y: '1'\n")
    text = render_dag(pipeline, load_conf("cluster", overrides=["ops.schedule=@monthly"]), conf_file=str(run_yaml))
    tree = ast.parse(text)
    nodes, upstream = _assigned_literal(tree, "NODES"), _assigned_literal(tree, "UPSTREAM")
    assert list(nodes) == pipeline.order()
    assert upstream == {n: pipeline.dependencies(n) for n in pipeline.order()}
    spec = submit.SubmitSpec.from_conf(load_conf("cluster"), str(run_yaml))
    spec.embed_conf = True
    for name, kw in nodes.items():
        assert kw["application"] == f"jobs/{name}.py"
        assert kw["application_args"] == submit.application_args(spec, pipeline, pipeline.nodes[name])
        assert "files" not in kw and "--conf" not in kw["application_args"]
    assert "schedule='@monthly'" in text and "class CrawlplanNodeOperator(SparkSubmitOperator)" in text
    assert _assigned_literal(tree, "CHECK_PYTHON") is None     # cluster mode: the job checks its marker
    # issue 29: the DAG runs on Airflow's workers: no path of the machine that generated it
    assert str(tmp_path) not in text and "--conf run.yaml" in text


def test_wheel_carries_package_and_resources_and_is_reproducible(tmp_path):
    a = build_wheel(REPO, tmp_path / "a")
    b = build_wheel(REPO, tmp_path / "b")
    assert a.read_bytes() == b.read_bytes()
    with zipfile.ZipFile(a) as zf:
        names = set(zf.namelist())
        assert "crawlplan/__init__.py" in names and "crawlplan/dag/runner.py" in names
        for kind in ("conf", "schemas", "pipelines"):
            for f in (REPO / kind).glob("*.yaml"):
                assert zf.read(f"crawlplan/_resources/{kind}/{f.name}") == f.read_bytes()
        assert not any("__pycache__" in n for n in names)
        record = zf.read("crawlplan-0.1.0.dist-info/RECORD").decode().splitlines()
        for line in record:
            name, digest, size = line.rsplit(",", 2)
            if digest:
                data = zf.read(name)
                expect = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
                assert digest == f"sha256={expect}" and int(size) == len(data)
        meta = zf.read("crawlplan-0.1.0.dist-info/METADATA").decode().splitlines()
        # the platform's Spark brings pyspark: installing the wheel must not pull PyPI's over it
        spark = [line for line in meta if line.startswith("Requires-Dist: pyspark")]
        assert spark and all(line.endswith('extra == "spark"') or 'extra == "test"' in line
                             or 'extra == "connect"' in line for line in spark), spark
        assert "Requires-Dist: lxml>=5" in meta and "Provides-Extra: spark" in meta


def test_requirements_are_the_runtime_closure_without_spark(tmp_path):
    out = package(REPO, tmp_path)
    pins = dict(line.split("==") for line in out["requirements"].read_text().splitlines())
    assert {"lxml", "trafilatura", "pandas", "pyarrow", "fasttext-wheel"} <= {k.lower() for k in pins}
    assert not {"pyspark", "py4j", "pytest", "moto", "pip", "setuptools"} & {k.lower() for k in pins}, pins


def test_package_imported_from_the_zip_finds_its_resources(tmp_path):
    out = package(REPO, tmp_path)
    zipped = out["py_files"]
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import crawlplan, crawlplan.paths as p;"
            "from crawlplan.schemas import load_schema;"
            "print(crawlplan.__file__); print(p.resource_dir('schemas')); print(load_schema('icc').names[0])")
    proc = subprocess.run([sys.executable, "-I", "-c", code, str(zipped)], capture_output=True, text=True,
                          cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    pkg_file, schemas, first_col = proc.stdout.split()
    assert pkg_file.startswith(str(zipped))
    assert not schemas.startswith(str(REPO)) and (Path(schemas) / "icc.yaml").is_file()
    assert first_col == "classifier"


def test_datasets_page_is_up_to_date(pipeline):
    page = REPO / "docs" / "datasets.md"
    assert page.is_file(), "docs/datasets.md missing: run `crawlplan docs datasets`"
    assert page.read_text() == render_datasets(pipeline), "docs/datasets.md is stale: run `crawlplan docs datasets`"


def test_every_job_has_a_docs_page_with_local_and_cluster_commands(pipeline):
    for name in pipeline.order():
        page = REPO / "docs" / "jobs" / f"{name}.md"
        assert page.is_file(), f"docs/jobs/{name}.md missing"
        text = page.read_text()
        assert f"crawlplan job {name}" in text, f"docs/jobs/{name}.md lacks a local example"
        assert "spark-submit" in text and f"jobs/{name}.py" in text, f"docs/jobs/{name}.md lacks a cluster example"


def test_every_job_page_shows_its_conf_section_as_conf_defaults_has_it(tmp_path):
    """docs/jobs/<node>.md quotes its node's section of conf/defaults.yaml; a quote that drifts
    tells the user defaults the code no longer has (round 14 found every page but two stale).
    ``scripts/sync_job_docs.py`` rewrites a stale quote; on a copy here, so the check is checked."""
    import shutil

    import sync_job_docs

    assert len(sync_job_docs.quoted_sections()) >= 10
    assert sync_job_docs.stale_pages() == [], "run .venv/bin/python scripts/sync_job_docs.py"
    copy = tmp_path / "repo"
    shutil.copytree(REPO / "docs" / "jobs", copy / "docs" / "jobs")
    (copy / "conf").mkdir()
    conf = (REPO / "conf" / "defaults.yaml").read_text()
    (copy / "conf" / "defaults.yaml").write_text(conf.replace("    train_size: 1000 ", "    train_size: 999  ", 1))
    assert sync_job_docs.stale_pages(copy) == ["sitemaps.md (source.sitemaps)"]
    assert sync_job_docs.stale_pages(copy, fix=True) == ["sitemaps.md (source.sitemaps)"]
    assert sync_job_docs.stale_pages(copy) == [] and "train_size: 999 " in (copy / "docs" / "jobs" / "sitemaps.md").read_text()


def test_submit_run_stops_at_the_first_failing_node(capsys, tmp_path, monkeypatch):
    from crawlplan.cli import main

    run_yaml = tmp_path / "my-run.yaml"
    run_yaml.write_text("inputs:\n  warc_paths: s3a://commoncrawl/crawl-data/CC-MAIN-2024-10/warc.paths.gz\n"
                        "  host_index: s3a://bucket/host-index/\n  web_graph: s3a://bucket/graph/\n")
    inputs = ["--conf", str(run_yaml)]
    monkeypatch.delenv("HADOOP_CONF_DIR", raising=False)
    monkeypatch.delenv("YARN_CONF_DIR", raising=False)
    # spark-submit --master yarn would fail with "either HADOOP_CONF_DIR or YARN_CONF_DIR must be set"
    assert main(["submit", "main", "--run", "--only", "extract", "--set", "ops.spark_submit=/bin/true", *inputs]) == 2
    assert "set HADOOP_CONF_DIR (or YARN_CONF_DIR) to the folder holding the cluster's yarn-site.xml" \
        in capsys.readouterr().err
    monkeypatch.setenv("HADOOP_CONF_DIR", str(tmp_path))
    assert main(["submit", "main", "--run", "--only", "extract", "--only", "classify",
                 "--set", "ops.spark_submit=/bin/true", *inputs]) == 0
    out = capsys.readouterr().out
    assert "[1/2] extract: /bin/true --master yarn" in out and "[2/2] classify" in out
    # an input the jobs will not get stops the run before the first cluster job; --set does not
    # reach the jobs, so it does not count
    assert main(["submit", "main", "--run", "--set", "ops.spark_submit=/bin/true",
                 "--set", "inputs.warc_paths=s3a://x/warc.paths.gz"]) == 2
    captured = capsys.readouterr()
    assert "[1/11]" not in captured.out and "inputs.warc_paths: needed by extract" in captured.err
    assert "in the --conf file" in captured.err
    assert main(["submit", "main", "--run", "--set", "ops.spark_submit=/bin/false", *inputs]) == 1
    captured = capsys.readouterr()
    assert "[1/11] extract" in captured.out and "[2/11]" not in captured.out
    assert "node extract failed" in captured.err


def test_airflow_verb_writes_the_dag_file(tmp_path, capsys):
    from crawlplan.cli import main

    out = tmp_path / "dags" / "crawlplan_main.py"
    assert main(["airflow", "main", "--out", str(out), "--set", "ops.schedule=@weekly"]) == 0
    text = out.read_text()
    compile(text, str(out), "exec")
    assert "schedule='@weekly'" in text and "wrote" in capsys.readouterr().out


def test_submit_finds_pysparks_spark_submit_and_the_client_drivers_python(pipeline, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))            # no activated venv: no spark-submit on PATH
    bundled = Path(pyspark.__file__).parent / "bin" / "spark-submit"
    assert submit.spark_submit_binary("spark-submit") == str(bundled)
    assert submit.spark_submit_binary("/opt/spark/bin/spark-submit") == "/opt/spark/bin/spark-submit"
    with pytest.raises(FileNotFoundError, match="ops.spark_submit"):
        submit.spark_submit_binary("spark3-submit")
    spec = submit.SubmitSpec.from_conf(load_conf("cluster", overrides=["ops.master=spark://127.0.0.1:7077",
                                                                  "ops.deploy_mode=client"]))
    assert submit.driver_defaults(spec, environ={}) == {"PYSPARK_DRIVER_PYTHON": sys.executable}
    assert submit.driver_defaults(spec, environ={"PYSPARK_DRIVER_PYTHON": "/my/python"}) == {}
    script = submit.render(submit.commands(spec, pipeline), submit.driver_defaults(spec, environ={}))
    assert f'export PYSPARK_DRIVER_PYTHON="${{PYSPARK_DRIVER_PYTHON:-{sys.executable}}}"' in script
    spec.force = True
    assert submit.command(spec, pipeline, pipeline.nodes["classify"])[-1] == "--force"
    spec.deploy_mode = "cluster"
    with pytest.raises(ValueError, match="no cluster deploy mode for Python"):
        submit.check(spec)


def test_submit_and_airflow_warn_about_a_missing_package_relative_outputs_and_no_inputs(tmp_path):
    """Issue 31: said before the commands run, not found in a cluster log an hour later."""
    from crawlplan.ops.submit import SubmitSpec, warnings_for

    conf = load_conf("cluster", overrides=["ops.master=yarn", f"ops.wheel={tmp_path / 'missing.zip'}",
                                           "ops.out_dir=out"])
    found = warnings_for(SubmitSpec.from_conf(conf), conf)
    assert [w.split(" ")[0] for w in found] == ["ops.wheel:", "outputs", "no"]
    assert "crawlplan package" in found[0] and "ops.out_dir" in found[1] and "inputs.warc_paths" in found[2]
    wheel = tmp_path / "crawlplan.zip"
    wheel.write_bytes(b"PK")
    conf = load_conf("cluster", overrides=["ops.master=yarn", f"ops.wheel={wheel}", "ops.out_dir=s3a://b/run",
                                           "inputs.warc_paths=s3://commoncrawl/x/warc.paths.gz"])
    assert warnings_for(SubmitSpec.from_conf(conf), conf) == []
