"""Settings for tests: built the one way the code builds them (``from_params`` over the conf
section of conf/defaults.yaml), with a test's overrides on top."""

from __future__ import annotations

import dataclasses
import functools

from crawlplan.ccindex.sample import SampleSettings
from crawlplan.conf import load_conf, section
from crawlplan.extract.records import ExtractSettings
from crawlplan.policies.allocate import AllocatorConfig
from crawlplan.policies.export import ExportSettings
from crawlplan.policies.simulate import sweep_config as _sweep_config
from crawlplan.source.experiment import SitemapSettings
from crawlplan.source.learner import LearnerSettings, SitemapLearner
from crawlplan.warc.reader import ReadLimits
from crawlplan.warc.remote import RetryPolicy


def allocator_config(**overrides) -> AllocatorConfig:
    return AllocatorConfig.from_params({**section(load_conf(), "policies.allocate"), **overrides})


def sweep_config(**overrides):
    return _sweep_config(section(load_conf(), "policies.simulate"), **overrides)


def extract_section(**overrides) -> dict:
    return {**section(load_conf(), "extract"), **overrides}


def extract_settings(**overrides) -> ExtractSettings:
    return ExtractSettings.from_params(extract_section(**overrides), check_packages=False, remote=remote_section())


def export_settings(**overrides) -> ExportSettings:
    """The export's settings: conf keys of policies.export from conf/defaults.yaml, CLI fields and
    a test's overrides on top."""
    return ExportSettings.from_params(section(load_conf(), ExportSettings.SECTION), **overrides)


def sample_settings(**overrides) -> SampleSettings:
    """Conf section extract.sample from conf/defaults.yaml, a test's overrides put in as given."""
    return dataclasses.replace(SampleSettings.from_params(section(load_conf(), "extract")["sample"]), **overrides)


def read_limits(**overrides) -> ReadLimits:
    """The read bounds of conf section extract (max_payload_bytes, max_header_bytes, max_url_bytes)."""
    return ReadLimits.from_params({**section(load_conf(), "extract"), **overrides})


def remote_section(**overrides) -> dict:
    return {**section(load_conf(), "remote"), **overrides}


def retry_policy(**overrides) -> RetryPolicy:
    return RetryPolicy.from_params(remote_section(**overrides))


def sitemap_settings(**overrides) -> SitemapSettings:
    """Conf section source.sitemaps with a test's overrides (learner keys too), typed and checked."""
    return SitemapSettings.from_params({**section(load_conf(), SitemapSettings.SECTION), **overrides})


@functools.cache
def _learner_defaults() -> LearnerSettings:
    return LearnerSettings.from_params(section(load_conf(), LearnerSettings.SECTION))


def learner_settings(**overrides) -> LearnerSettings:
    """The learner's settings from conf/defaults.yaml, a test's overrides put in as given (not
    typed), so a test can also hand the learner a value its ``validate`` must refuse."""
    return dataclasses.replace(_learner_defaults(), **overrides)


def sitemap_learner(**overrides) -> SitemapLearner:
    return SitemapLearner(learner_settings(**overrides))


__all__ = ["allocator_config", "sweep_config", "extract_section", "extract_settings", "export_settings",
           "sample_settings", "read_limits", "remote_section", "retry_policy", "sitemap_settings", "learner_settings", "sitemap_learner"]
