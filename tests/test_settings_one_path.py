"""One settings path in the library too (issue #31 item 9): the sitemap learner takes a settings
object built by ``from_params``, no numeric default in library code repeats conf/defaults.yaml,
the sites' ground truth is a data file of its own, and scripts/code_counts.py counts the library."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from dataclasses import asdict
from pathlib import Path

import code_counts
import pytest
from settings_support import learner_settings, sitemap_settings

from crawlplan.conf import ConfError, load_conf, load_yaml, section, settings_from
from crawlplan.source.experiment import SitemapSettings, site_specs, site_types
from crawlplan.source.learner import LearnerSettings, SitemapLearner

REPO = Path(__file__).resolve().parent.parent


def _bags():
    a, b = Counter({"/html/body/div/p": 3, "/html/body/h1": 1}), Counter({"/html/body/ul/li": 5, "/html/body/h2": 1})
    return [a] * 6 + [b] * 6


# --- 1. the learner's settings ------------------------------------------------------------------

def test_the_learner_is_built_from_its_conf_section_and_keeps_the_estimator_api():
    conf = section(load_conf(), "source.sitemaps")
    settings = LearnerSettings.from_params(conf)
    assert (settings.min_pts, settings.alpha_ucc, settings.alpha_target) == (conf["min_pts"], 0.5, 0.8)
    assert settings.w_table == {100: 16.0, 200: 12.0, 500: 6.0, 1000: 4.8}
    assert settings.noise_radius is None and settings.url_merge is None    # "" = the method's preset
    learner = SitemapLearner(settings)
    assert learner.get_params() == {"settings": settings}
    assert learner.min_pts == conf["min_pts"] and learner.noise_radius_ == 4.0     # preset resolved
    labels = learner.fit(_bags()).labels_
    assert set(labels.tolist()) == {0, 1} and learner.predict(_bags()[:1]).tolist() == [labels[0]]
    back = SitemapLearner.from_json(learner.to_json())            # JSON keys come back typed (w_table)
    assert back.settings == settings and back.get_params() == learner.get_params()
    with pytest.raises(TypeError):
        SitemapLearner(asdict(settings))                          # keywords are not a second way in


def test_a_missing_learner_key_is_an_error_naming_it():
    params = dict(section(load_conf(), "source.sitemaps"))
    del params["alpha_ucc"]
    with pytest.raises(ConfError, match="source.sitemaps.alpha_ucc"):
        LearnerSettings.from_params(params)
    with pytest.raises(ValueError, match="min_pts must be an integer >= 1"):
        LearnerSettings.from_params({**section(load_conf(), "source.sitemaps"), "min_pts": 2.5})


def test_a_set_override_reaches_the_learner_and_the_experiment():
    conf = load_conf("local", overrides=["source.sitemaps.noise_radius=2", "source.sitemaps.method=paper",
                                         "source.sitemaps.train_size=50", "source.sitemaps.eps=0.3"])
    settings = SitemapSettings.from_params(section(conf, "source.sitemaps"))
    assert settings.train_size == 50
    learner = SitemapLearner(settings.learner)
    assert (learner.method, learner.noise_radius_, learner.norm_, learner.eps) == ("paper", 2.0, "l1", 0.3)


def test_optional_and_typed_map_fields_convert():
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class Probe:
        radius: float | None
        mode: str | None
        table: dict[int, float]

    got = settings_from(Probe, {"radius": "", "mode": "x", "table": {"100": "1.5"}}, "probe")
    assert got == Probe(None, "x", {100: 1.5})
    assert settings_from(Probe, {"radius": 3, "mode": None, "table": {}}, "probe").radius == 3.0


# --- 2. no numeric default in library code ------------------------------------------------------

# Left on purpose: the demo crawl's own generators (demo-only code; every caller passes the conf's
# demo.* values), and two seeds that are not the conf's seed keys although they share the name
# (the calibrated population's, the cross-validation folds').
LEFT = {"crawlplan/demo/crawl.py", "crawlplan/demo/models.py", "crawlplan/demo/web.py",
        "crawlplan/policies/population.py:176 calibrated_population(seed=0)",
        "crawlplan/source/evaluate.py:88 cv_precision(seed=0)"}


def test_no_library_default_repeats_a_value_of_defaults_yaml():
    found = code_counts.library_defaults(REPO)
    unexpected = [f for f in found if f.split(":")[0] not in LEFT and f not in LEFT]
    assert unexpected == []


def test_code_counts_counts_the_library_as_well_as_the_nodes(tmp_path):
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "defaults.yaml").write_text("stats:\n  min_docs: 3\n  threshold: 0.5\n")
    lib = tmp_path / "crawlplan" / "stats"
    lib.mkdir(parents=True)
    (lib / "x.py").write_text("def f(p, min_docs=3, threshold=0.9, n=3):\n"
                              "    return p.get('threshold', 0.5), p.get('other', 0.5), p.get('min_docs', 4)\n")
    (tmp_path / "crawlplan" / "nodes").mkdir()
    (tmp_path / "crawlplan" / "nodes" / "y.py").write_text("def run(ctx):\n    return ctx.params.get('min_docs', 3)\n")
    # threshold=0.9, get("other", ..) and get("min_docs", 4) hold no value the conf has for that key
    assert sorted(code_counts.library_defaults(tmp_path)) == ["crawlplan/stats/x.py:1 f(min_docs=3)",
                                                         "crawlplan/stats/x.py:2 get threshold"]
    assert code_counts.node_defaults(tmp_path) == ["crawlplan/nodes/y.py:2 min_docs"]
    assert code_counts.counts(tmp_path)["library_defaults"] == 2


# --- 3. the sites' ground truth is data ---------------------------------------------------------

def test_site_ground_truth_is_its_own_data_file():
    defaults = load_yaml(REPO / "conf" / "defaults.yaml")
    assert "site_types" not in defaults["source"]["sitemaps"]
    with pytest.raises(ConfError, match="unknown config key 'source.sitemaps.site_types'"):
        load_conf("local", overrides=["source.sitemaps.site_types={}"])
    types = site_types()
    assert types == load_yaml(REPO / "conf" / "site_types.yaml")
    assert types["docs.python.org"]["target_type"] == "library_module"
    assert site_specs(types)["docs.djangoproject.com"].typer(
        "https://docs.djangoproject.com/en/3.2/releases/3.0.html") == "release_notes"
    extra = {"x.example": {"page_types": {"a": "^https://x\\.example/a"}, "ucc_types": ["a"]}}
    settings = sitemap_settings(extra_site_types=extra)
    assert set(settings.site_types) == set(types) | {"x.example"}
    from crawlplan.dag.runner import job_state

    assert job_state("source.sitemaps", {}, load_conf()) == {"site_types": types}   # in the fingerprint


def test_the_zipped_package_finds_the_site_types(tmp_path):
    from crawlplan.ops.package import package

    zipped = package(REPO, tmp_path)["py_files"]
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from crawlplan.source.experiment import site_types;"
            "import crawlplan.paths as p; print(p.resource_dir('conf')); print(sorted(site_types()))")
    proc = subprocess.run([sys.executable, "-I", "-c", code, str(zipped)], capture_output=True, text=True,
                          cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    conf_dir, sites = proc.stdout.splitlines()
    assert not conf_dir.startswith(str(REPO))
    assert sites == str(sorted(site_types()))


def test_defaults_yaml_lines_fit_in_100_characters():
    long = [(n, len(line)) for n, line in enumerate((REPO / "conf" / "defaults.yaml").read_text().splitlines(), 1)
            if len(line) > 100]
    assert long == []


def test_settings_support_overrides_are_raw_so_validate_still_refuses_bad_values():
    with pytest.raises(ValueError, match="binary_tf"):
        SitemapLearner(learner_settings(binary_tf="yes")).validate()
