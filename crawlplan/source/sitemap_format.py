"""The sitemap's JSON form: what a learned :class:`~crawlplan.source.learner.SitemapLearner`
writes and reads back.

Plain JSON, no pickle, so that a crawler in another process or language can load a sitemap and
classify pages. JSON keys are strings; these functions turn the learner's integer-keyed tables
into string-keyed ones and back, and nothing else. What the learner derives from the stored
state (its kNN index, adjacency, kind labels) it derives again itself, so a format change is
only ever a change of stored fields. ``FORMAT`` names the version: a sitemap of another version,
or of this one with a field missing (a file cut short or edited), is refused with the field and
the command that learns it again, never read half-way.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from scipy import sparse

from crawlplan.source import navigation as nav

# 2: sample yields; 3: cuts by section; 4: crawl_guard, kind_markers; 5: idf; 6: kinds, kind_joins;
# 7: namespace_test, kind_folder_join, kind_section_join; 8: kind_levels; 9: state_levels,
# target_score likely_first; 10: target_unit, ucc_unit, kind_cross_join; 11: marker_cut;
# 12: ucc_recurring; 13: unmarked_names; 14: section_copies; 15: structure_joins; 16: kind_marker_cut;
# 17: kind_cluster_join; 18: kind_wrapper_cut; 19: target_listing (the sample's listings);
# 20: kind_root_join; 21: kind_numbered_join
FORMAT = "crawlplan.sitemap/21"


def _keys_str(table: dict) -> dict:
    return {str(k): v for k, v in table.items()}


def _ints(table: dict, value=lambda v: v) -> dict:
    return {int(k): value(v) for k, v in table.items()}


def _int_table(table: dict) -> dict:
    """{key: {int-ish: int-ish}} -> the same with int keys and values (the cuts' {cluster: {name: part}})."""
    return {int(c): {name: int(part) for name, part in parts.items()} for c, parts in table.items()}


def to_dict(learner) -> dict:
    """The fitted learner's state as JSON-ready data (the kind model nested, in the same form)."""
    V = learner.train_vectors_
    out = {
        "format": FORMAT, "params": dataclasses.asdict(learner.settings), "vocabulary": learner.vocabulary_,
        "idf": learner.idf_.tolist(), "labels": learner.labels_.tolist(),
        "train": {"data": V.data.tolist(), "indices": V.indices.tolist(), "indptr": V.indptr.tolist()},
        "eps": None if math.isnan(learner.eps_) else learner.eps_, "eps_source": learner.eps_source_,
        "cluster_sizes": _keys_str(learner.cluster_sizes_),
        "dsim": _keys_str(learner.dsim_),
        "kind_model": None if learner.kind_model_ is None else to_dict(learner.kind_model_),
        "kind_joins": _keys_str(learner.kind_joins_),
        "structure_joins": _keys_str(learner.structure_joins_),
    }
    if hasattr(learner, "navigation_"):
        out["navigation"] = nav.navigation_to_rows(learner.navigation_)
        out["hubs"] = _keys_str(learner.hubs_)
        out["authorities"] = _keys_str(learner.authorities_)
        out["cluster_yield"] = {str(i): _keys_str(row) for i, row in learner.cluster_yield_.items()}
        out["kind_yield"] = _keys_str(learner.kind_yield_)
        out["listings"] = _listings_to_dict(learner.listings_)
    out["folder_cuts"] = {"root": learner.folder_root_, "cuts": _keys_str(learner.folder_cuts_)}
    out["marker_cuts"] = _keys_str(learner.marker_cuts_)
    if hasattr(learner, "url_families_"):
        out["url_families"] = learner.url_families_
    if hasattr(learner, "url_kind_clusters_"):
        out["url_kind_clusters"] = {family: {prefix: _keys_str(by_cluster) for prefix, by_cluster in prefixes.items()}
                                    for family, prefixes in learner.url_kind_clusters_.items()}
    return out


def _listings_to_dict(listings: list[dict]) -> dict:
    """The sample's listings with each URL written once: the listings of a site share most of
    their URLs (a third of a javadoc sitemap's size when each listing spelled them out)."""
    urls = sorted({u for listing in listings for u in listing["urls"]})
    index = {u: i for i, u in enumerate(urls)}
    return {"urls": urls, "lists": [{"urls": [index[u] for u in listing["urls"]], "kinds": _keys_str(listing["kinds"])}
                                    for listing in listings]}


def _listings_from_dict(data: dict) -> list[dict]:
    urls = data["urls"]
    return [{"urls": [urls[i] for i in listing["urls"]], "kinds": _ints(listing["kinds"], int)}
            for listing in data["lists"]]


def read(data) -> tuple[dict, dict | None, dict]:
    """A sitemap's parts for the learner to restore: (its settings' params, its kind model's
    sitemap or None, the learned attributes by attribute name with their integer keys back).
    The kind model is a sitemap of its own, read by the learner as one. Optional parts
    (navigation, URL families) appear only where the sitemap has them. Refused with a
    ValueError: what is not a JSON object, a sitemap of another version, and one of this version
    that lacks a field it must have (a file cut short or edited), the field named."""
    if not isinstance(data, dict):
        raise ValueError(f"not a crawlplan sitemap: a JSON object expected, got {type(data).__name__}")
    if data.get("format") != FORMAT:
        raise ValueError(f"not a crawlplan sitemap of this version (format {data.get('format')!r}, expected "
                         f"{FORMAT}): learn it again with `crawlplan sitemap`")
    try:
        return data["params"], data["kind_model"], _stored_state(data)
    except KeyError as missing:
        raise ValueError(f"a crawlplan sitemap ({FORMAT}) without its {missing} field: the file is cut "
                         f"short or edited; learn it again with `crawlplan sitemap`") from None


def _stored_state(data: dict) -> dict:
    t = data["train"]
    cuts = data["folder_cuts"]
    vocabulary = list(data["vocabulary"])
    labels = np.asarray(data["labels"], dtype=int)
    state = {
        "vocabulary_": vocabulary, "idf_": np.asarray(data["idf"], dtype=float), "labels_": labels,
        "train_vectors_": sparse.csr_matrix((t["data"], t["indices"], t["indptr"]),
                                            shape=(len(labels), len(vocabulary))),
        "eps_": float("nan") if data["eps"] is None else float(data["eps"]),
        "eps_source_": data.get("eps_source", "given"),
        "folder_root_": str(cuts["root"]), "folder_cuts_": _int_table(cuts["cuts"]),
        "marker_cuts_": _int_table(data["marker_cuts"]),
        "cluster_sizes_": _ints(data["cluster_sizes"]), "dsim_": _ints(data["dsim"]),
        "kind_joins_": _ints(data["kind_joins"], int), "structure_joins_": _ints(data["structure_joins"], int),
    }
    if "navigation" in data:
        state["navigation_"] = nav.navigation_from_rows(data["navigation"])
        state["hubs_"] = _ints(data["hubs"])
        state["authorities_"] = _ints(data["authorities"])
        state["cluster_yield_"] = {int(i): _ints(row, float) for i, row in data["cluster_yield"].items()}
        state["kind_yield_"] = _ints(data["kind_yield"])
        state["listings_"] = _listings_from_dict(data["listings"])
    if "url_families" in data:
        state["url_families_"] = {family: {prefix: int(n) for prefix, n in prefixes.items()}
                                  for family, prefixes in data["url_families"].items()}
    if "url_kind_clusters" in data:
        state["url_kind_clusters_"] = {family: {prefix: _ints(by_cluster, int) for prefix, by_cluster in prefixes.items()}
                                       for family, prefixes in data["url_kind_clusters"].items()}
    return state
