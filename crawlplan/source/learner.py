"""The SOUrCe sitemap learner: bag-of-XPaths clustering plus the Apath navigation table.

``SitemapLearner`` follows scikit-learn's estimator conventions: its constructor argument (a
:class:`LearnerSettings`, built from conf ``source.sitemaps`` by ``from_params``) holds the
parameters, ``fit`` learns, learned state ends in ``_``. It serialises to plain JSON (no pickle:
:mod:`crawlplan.source.sitemap_format`) so a crawler in another process or language can load the
sitemap and classify pages. The
parameters, the two methods (``paper``, ``default``) and why the default differs are in
:mod:`crawlplan.source.params`.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Mapping, Sequence

import numpy as np
from scipy import sparse

from crawlplan.source import navigation as nav
from crawlplan.source import sitemap_format
from crawlplan.source.eps import MIN_EPS, eps_by_silhouette, eps_from_histogram, kdist
from crawlplan.source.features import extract
from crawlplan.source.folder_cuts import COPY_KEY, cut_by_folder, path_in_section
from crawlplan.source.kinds import KINDS_ARE_CLUSTERS, cluster_kinds, fit_kinds, joined, levels_collapsed
from crawlplan.source.link_context import absorb_small_clusters, flat_site_labels
from crawlplan.source.listings import sample_listings
from crawlplan.source.name_cuts import MEMBER_CUTS, cut_by_marker, is_recurring, name_part_of
from crawlplan.source.params import LearnerParams, LearnerSettings
from crawlplan.source.url_kinds import (
    folder_root,
    merge_by_url_kind,
    prefix_counts,
    top_folder,
    url_kind_clusters,
)


def idf_weights(df: Sequence[int], n: int, mode: str) -> np.ndarray:
    """Each XPath's idf from its document frequency among n pages. ``plain`` (the paper's Eq 1):
    log2(n / df), so a path on every page weighs 0. ``smooth``: log2(1 + n / df), 1 for a path on
    every page and nearly plain for rare ones. Where one kind of page fills most of the sample (a
    manual's chapters) its template's paths sit on nearly every page, so plain idf leaves those
    pages only their content paths (tables, lists, listings) to be compared by, and the kind
    splits by content; smooth idf keeps the shared template in every vector."""
    d = np.asarray(df, dtype=float)
    if mode == "plain":
        return np.log2(n / d)
    if mode == "smooth":
        return np.log2(1 + n / d)
    raise ValueError(f"idf must be plain or smooth, got {mode!r}")


class SitemapLearner(LearnerParams):
    """Cluster a site's pages by structure and learn where each (cluster, Apath) leads
    (parameters: :class:`LearnerParams`)."""

    # -- features ---------------------------------------------------------------------------
    def featurize(self, url: str, html):
        """Page features in this learner's XPath variant (what a crawler calls per fetched page)."""
        return extract(url, html, xpath_classes=self.xpath_classes_)

    def _bags(self, X) -> list[Mapping[str, int]]:
        """Each page's XPaths as this learner reads them (``state_levels``); fitting, new pages
        and the kind model (whose ``state_levels`` is the parent's ``kind_levels``) alike."""
        bags = [getattr(x, "xpaths", x) for x in X]
        return [levels_collapsed(bag) for bag in bags] if self.state_levels_ == "collapsed" else bags

    def transform(self, X) -> sparse.csr_matrix:
        """log-tf-idf (``binary_tf``: presence x idf) over the learned vocabulary, L1- (paper) or
        L2-normalised, new pages too
        (the authors' code skipped this for new pages, a bug the notes call out)."""
        bags = self._bags(X)
        index = self._index
        rows, cols, vals = [], [], []
        for r, bag in enumerate(bags):
            for path, tf in bag.items():
                j = index.get(path)
                if j is not None and tf > 0:
                    rows.append(r)
                    cols.append(j)
                    vals.append((1.0 if self.binary_tf else math.log2(1 + tf)) * self.idf_[j])
        M = sparse.csr_matrix((vals, (rows, cols)), shape=(len(bags), len(self.vocabulary_)))
        if self.norm_ not in ("l1", "l2"):
            raise ValueError(f"norm must be l1 or l2, got {self.norm_!r}")
        if self.norm_ == "l1":
            norms = np.asarray(abs(M).sum(axis=1)).ravel()
        else:
            norms = np.sqrt(np.asarray(M.multiply(M).sum(axis=1)).ravel())
        norms[norms == 0] = 1.0
        return sparse.csr_matrix(sparse.diags(1.0 / norms) @ M)

    # -- learning ---------------------------------------------------------------------------
    def fit(self, X, y=None, *, urls: Sequence[str] | None = None,
            links: Sequence[Sequence[tuple[str, str]]] | None = None, resolve=None, navigation: bool = True):
        """X: per page a bag of leaf XPaths (mapping path -> count) or a PageFeatures.
        With ``urls`` (and ``links``, taken from PageFeatures when absent) the navigation
        table, adjacency and HITS scores are learned as well, unless ``navigation`` is False
        (a kind model: the URLs serve the URL rules only, and nothing navigates by it)."""
        self.validate()
        bags = self._bags(X)
        n = len(bags)
        if n == 0:
            raise ValueError("SitemapLearner.fit needs at least one page")
        df: dict[str, int] = {}
        for bag in bags:
            for path in bag:
                df[path] = df.get(path, 0) + 1
        theta = self.min_pts if n >= 2 * self.min_pts else 1
        # max_df < 1 drops the layout: paths on more than that share of the sample (measured, not kept)
        self._set_vocabulary(sorted(p for p, d in df.items() if d >= theta and d <= self.max_df * n))
        self.idf_ = idf_weights([df[p] for p in self.vocabulary_], n, self.idf_mode_)
        Xv = self.transform(bags)
        self.train_vectors_ = Xv
        labels = self._cluster(Xv)
        if self.min_cluster_share_ > 0:   # a cluster this small is a variant of a kind: noise, attached below
            labels = absorb_small_clusters(labels, self.min_cluster_share_)
        labels = self._attach_noise(Xv, labels)
        if urls is not None and links is None:
            links = [getattr(x, "links", []) for x in X]
        self.link_split_ = 0
        if urls is not None and self.link_context_ == "flat":
            labels, self.link_split_ = flat_site_labels(labels, urls, links, self._cluster_bags, resolve=resolve)
        self.url_merged_ = 0
        if urls is not None and self.url_merge_ > 0:
            merged = merge_by_url_kind(labels, urls, self.url_merge_, markers=self.markers_in_clusters_)
            self.url_merged_ = len(set(labels.tolist())) - len(set(merged.tolist()))
            labels = merged
        self.folder_root_, self.folder_cuts_ = "/", {}
        if urls is not None and self.folder_cut_ != "off":
            self.folder_root_ = folder_root(urls)
            labels, self.folder_cuts_ = cut_by_folder(labels, urls, self.min_pts, root=self.folder_root_,
                                                      markers=self.markers_in_clusters_,
                                                      unmarked_sections=self.folder_cut_ == "unmarked_sections",
                                                      namespaces=self.namespace_test_,
                                                      copies_apart=self.section_copies_ == "apart")
        self.marker_cuts_ = {}
        by = self.marker_cut_
        if urls is not None and (by.startswith("shapes") or by == "markers" and self.markers_in_clusters_):
            known = list(urls) + [target for page in (links or ()) for _apath, target in page] \
                if by in MEMBER_CUTS else None
            labels, self.marker_cuts_ = cut_by_marker(labels, urls, self.min_pts, namespaces=self.namespace_test_,
                                                      by=by, known=known, unmarked=self.unmarked_names_)
        self.labels_ = labels
        self.kind_model_, self.kind_labels_, self.kind_joins_, self.structure_joins_ = \
            fit_kinds(self, X, bags, urls, links, resolve)
        self._learn_from_labels()
        if urls is not None and navigation:
            self.url_kind_clusters_ = url_kind_clusters(urls, self.structural(self.labels_).tolist())
            self.url_families_ = prefix_counts(self.url_kind_clusters_)
            self.fit_navigation(urls, links, resolve=resolve)
        return self

    def _learn_from_labels(self) -> None:
        """What ``labels_`` decides: the cluster count, the outlier share, the kNN that predicts
        unseen pages and the clusters' sizes and spread. One place, so a step that relabels a
        fitted model (the kind model's wrapper cut) leaves it as ``fit`` would."""
        self.n_clusters_ = int(self.labels_.max() + 1) if len(self.labels_) else 0
        self.outlier_share_ = float(np.mean(self.labels_ == -1)) if len(self.labels_) else 0.0
        self._fit_knn()
        self._cluster_stats(self.train_vectors_)

    def _set_vocabulary(self, vocabulary: list[str]) -> None:
        """The XPaths a page is read by, and their column index: set by ``fit``, restored by ``from_json``."""
        self.vocabulary_ = vocabulary
        self._index = {p: i for i, p in enumerate(vocabulary)}
        self.n_features_ = len(vocabulary)

    def _cluster_bags(self, bags) -> np.ndarray:
        """This learner's clustering (features, eps, DBSCAN, noise rule) of other bags: the
        link-context bags of ``link_context: flat``."""
        plain = dataclasses.replace(self.settings, link_context="off", min_cluster_share=0.0, url_merge=0.0,
                                    folder_cut="off", marker_cut="off", **KINDS_ARE_CLUSTERS)
        return type(self)(plain).fit(bags).labels_

    def predict_kind(self, X, urls: Sequence[str] | None = None) -> np.ndarray:
        """Each page's kind: what the sitemap reports as the site's page types (``kind_labels_``
        for the sample). Its cluster (:meth:`predict`) without ``kinds: smooth_idf``; with it,
        the cluster of the smooth-idf clustering learned beside (``kind_model_``). Smooth idf
        keeps a kind's template where the kind fills the sample, so a manual's chapters gather
        in one cluster; the crawl still navigates by the plain clusters, whose finer rows tell
        it better where a link leads (docs/source.md, "Kinds and navigation states (round 6)")."""
        model = getattr(self, "kind_model_", None)
        if model is None:
            return self._joined(self.predict(X, urls=urls))
        return self._joined(model.predict(X, urls=urls))

    def _joined(self, kinds) -> np.ndarray:
        return joined(kinds, getattr(self, "kind_joins_", None))

    def _unjoined_kinds(self) -> np.ndarray:
        """The sample's kinds before any join: the kind model's clusters, or its own without one."""
        return self.labels_ if self.kind_model_ is None else self.kind_model_.labels_

    def _cluster(self, Xv) -> np.ndarray:
        n = Xv.shape[0]
        self.eps_source_ = "none"
        if n <= self.min_pts or self.n_features_ == 0:   # too few pages, or no XPath passed the df filter
            self.eps_ = float("nan")
            return np.zeros(n, dtype=int)
        if self.clusterer_ == "hdbscan":
            # scikit-learn: heavy (scipy), loaded inside the worker that learns a site
            from sklearn.cluster import HDBSCAN

            model = HDBSCAN(min_cluster_size=self.min_pts, min_samples=self.min_pts, copy=True)
            labels = model.fit_predict(Xv.toarray())
            self.eps_ = float("nan")
            return labels.astype(int)
        if self.clusterer_ != "dbscan":
            raise ValueError(f"clusterer must be dbscan or hdbscan, got {self.clusterer_!r}")
        from sklearn.cluster import DBSCAN  # scikit-learn: heavy, loaded inside the worker that learns a site

        self.kdist_ = kdist(Xv, self.min_pts)
        self.eps_source_ = "given"
        if self.eps is not None:
            self.eps_ = float(self.eps)
        else:
            self.eps_ = eps_from_histogram(self.kdist_, self.n_features_, self.min_pts, num_bins=self.num_bins,
                                           w_table=self.w_table)
            self.eps_source_ = "histogram"
        if self.eps is None and self.eps_rule_ == "select":
            picked = eps_by_silhouette(Xv, self.kdist_, self.min_pts, fallback=self.eps_,
                                       candidates=[self.eps_])
            if picked != max(self.eps_, MIN_EPS):
                self.eps_, self.eps_source_ = picked, "silhouette"
        labels = DBSCAN(eps=max(self.eps_, MIN_EPS), min_samples=self.min_pts).fit_predict(Xv).astype(int)
        if self.eps is None and self.eps_rule_ == "guarded" and self._degenerate(labels):
            self.eps_ = eps_by_silhouette(Xv, self.kdist_, self.min_pts, fallback=self.eps_)
            self.eps_source_ = "silhouette"
            labels = DBSCAN(eps=self.eps_, min_samples=self.min_pts).fit_predict(Xv).astype(int)
        elif self.eps_rule_ not in ("histogram", "guarded", "select"):
            raise ValueError(f"eps_rule must be histogram, guarded or select, got {self.eps_rule_!r}")
        return labels

    def _attach_noise(self, Xv, labels: np.ndarray) -> np.ndarray:
        """DBSCAN noise within ``noise_radius`` x eps of a clustered page joins that page's
        cluster. A page just past eps of a border page is one template variant (a longer API
        page, an extra sidebar block), not a kind of page of its own; left as noise, every page
        the crawler later meets near it is predicted an outlier too. Pages farther out stay
        outliers, so a rare kind of page is not forced into a cluster it does not belong to."""
        self.noise_attached_ = 0
        radius = self._noise_radius_abs()
        noise, clustered = np.flatnonzero(labels == -1), np.flatnonzero(labels != -1)
        if radius <= 0 or not len(noise) or not len(clustered):
            return labels
        # scikit-learn: heavy (scipy), loaded inside the worker that learns a site
        from sklearn.neighbors import NearestNeighbors

        dist, nearest = NearestNeighbors(n_neighbors=1).fit(Xv[clustered]).kneighbors(Xv[noise])
        near = dist[:, 0] <= radius
        out = labels.copy()
        out[noise[near]] = labels[clustered[nearest[near, 0]]]
        self.noise_attached_ = int(near.sum())
        return out

    def _degenerate(self, labels: np.ndarray) -> bool:
        """Collapsed (too few clusters for a site this size) or shattered (too many outliers)."""
        n = len(labels)
        clusters = len(set(labels.tolist()) - {-1})
        few = clusters < self.min_clusters and n >= 10 * self.min_pts
        return few or float(np.mean(labels == -1)) > self.max_outlier_share

    def _fit_knn(self) -> None:
        # scikit-learn: heavy (scipy), loaded inside the worker that learns a site
        from sklearn.neighbors import KNeighborsClassifier

        if self.n_features_ == 0:  # no XPath passed the df filter: every page looks alike
            self._knn = None
            return
        k = self.n_neighbors or max(1, self.min_pts - 1)
        rows = np.arange(len(self.labels_))
        self._radius = self._noise_radius_abs()
        if self._radius > 0 and (self.labels_ != -1).any():
            rows = np.flatnonzero(self.labels_ != -1)   # outliers are decided by distance below
        k = min(k, len(rows))
        # the vote is between structural clusters; a section part is then chosen by the page's URL
        # (a cut cluster's vote must not be split over parts the structure cannot tell apart)
        self._knn = KNeighborsClassifier(n_neighbors=k, weights="distance").fit(
            self.train_vectors_[rows], self.structural(self.labels_)[rows])
        self._knn_clustered_only = len(rows) < len(self.labels_) or self._radius > 0

    def _noise_radius_abs(self) -> float:
        eps = getattr(self, "eps_", float("nan"))
        return self.noise_radius_ * eps if eps == eps and self.noise_radius_ > 0 else 0.0

    def structural(self, labels) -> np.ndarray:
        """Labels with every section part (``folder_cuts_``) mapped back to the structural
        cluster it was cut from: the clusters the navigation table, the hub and UCC scores and
        the target crawl work on. The cut is the URL's refinement of what the structure found;
        a link's Apath cannot tell the parts apart any better than the bags could, and cutting a
        cluster would split its hub and authority mass over the parts, so the crawls' scores
        would change with how a site names its folders."""
        labels = np.asarray(labels, dtype=int)
        # a marker cut parts the labels the section cut left: its parts map back first
        cuts = [getattr(self, "marker_cuts_", None) or {}, getattr(self, "folder_cuts_", None) or {}]
        if not any(cuts):
            return labels
        parents = [{part: parent for parent, parts in cut.items() for part in parts.values()} for cut in cuts]
        out = labels.tolist()
        for parent_of in parents:
            out = [parent_of.get(c, c) for c in out]
        return np.array(out, dtype=int)

    def _cluster_stats(self, Xv) -> None:
        labels = self.structural(self.labels_)
        self.clusters_ = sorted(int(c) for c in set(labels.tolist()))
        sizes, spread = {}, {}
        for c in self.clusters_:
            members = Xv[labels == c]
            sizes[c] = int(members.shape[0])
            spread[c] = nav.spread(members)
        self.cluster_sizes_ = sizes
        self.dsim_ = nav.normalise_dsim(spread)

    def cluster_kinds(self, *, by_structure: bool = False) -> dict[int, int]:
        """{structural cluster: its kind} for the clusters that have one — the kind most of its
        sample pages have (:func:`kinds.cluster_kinds`) — leaving out the outliers and the
        clusters whose pages are mostly the kinds' noise: what ``target_unit`` and ``ucc_unit``
        ``kind`` join clusters by. ``by_structure``: the kinds with the structure's joins alone
        (``structure_joins_``), the joins by URL name (``kind_folder_join``,
        ``kind_section_join``) left out."""
        kinds = self.kind_labels_
        if by_structure and hasattr(self, "structure_joins_"):   # a learner put together by hand: its kinds as given
            kinds = joined(self._unjoined_kinds(), self.structure_joins_)
        kinds = cluster_kinds(self.structural(self.labels_), kinds)
        return {c: k for c, k in kinds.items() if c != -1 and k != -1}

    def ucc_states(self) -> nav.UccStates:
        """What a UCC crawl (and a host plan without page types) values a cluster by: with
        ``ucc_unit`` cluster each structural cluster on its own, the paper's Info and Dsim; with
        ``kind`` the clusters of one kind (:func:`kinds.cluster_kinds`) as one unit — Info from
        HITS on the kinds' graph, Dsim of the kind's pages together, Balance counted per kind — so
        a kind the structure splits is not valued by how it was split. A cluster of no kind and
        the outliers stay units of their own. The kinds are the structure's (``by_structure``):
        Info and Dsim read how pages are built and linked, and a join by URL name puts
        together pages that are one type but built apart (javadoc's ``class-use/`` pages with
        and without usage tables), whose unit would look more dispersed, more like user content,
        than either is (junit's UCC valid ratio 0.954 -> 0.595 when it read them joined; issue 30,
        round 24)."""
        if self.ucc_unit_ != "kind":
            return nav.UccStates({c: c for c in self.clusters_},
                                 nav.info(self.hubs_, self.authorities_, self.alpha_ucc), self.dsim_)
        kind_of = self.cluster_kinds(by_structure=True)
        unit_of = {c: ("kind", kind_of[c]) if c in kind_of else c for c in self.clusters_}
        return nav.unit_states(self.adjacency_, self.clusters_, unit_of, self.train_vectors_,
                               self.structural(self.labels_), self.alpha_ucc)

    def fit_navigation(self, urls, links, resolve=None):
        structural = self.structural(self.labels_).tolist()
        labels = {u: int(c) for u, c in zip(urls, structural)}
        self.navigation_ = nav.navigation_counts(list(urls), structural, links, labels, resolve=resolve)
        self.adjacency_ = nav.adjacency(self.navigation_, self.clusters_)
        self.hubs_, self.authorities_ = nav.hits(self.adjacency_, self.clusters_)
        self.nav_entropy_ = nav.mean_row_entropy(self.navigation_)
        self.cluster_yield_, self.kind_yield_ = nav.sample_yields(
            structural, links, self.navigation_, resolve=resolve)
        kinds = getattr(self, "kind_labels_", self.labels_)   # a learner put together by hand: its clusters
        self.listings_ = sample_listings(urls, links, np.asarray(kinds).tolist(), self.min_pts, self.target_listing_,
                                         resolve=resolve) if self.target_listing_ > 0 else []
        return self

    # -- prediction -------------------------------------------------------------------------
    def predict(self, X, urls: Sequence[str] | None = None) -> np.ndarray:
        """Cluster labels for new pages (kNN, k = minPts - 1, distance-weighted; -1 = outlier).
        With ``noise_radius`` > 0 the neighbours are clustered training pages only, and a page
        farther than noise_radius x eps from all of them is an outlier; with 0 (the paper)
        training outliers vote as a class of their own. The neighbours vote for a structural
        cluster; in a cluster cut by section (``folder_cuts_``) a page then takes the part of its
        own section (``urls``, or each page's ``url`` when X holds PageFeatures) — the part the
        largest section kept for a section the sample never cut, a page outside the site's root
        or a page without a URL."""
        if not len(X):
            return np.zeros(0, dtype=int)
        if self._knn is None:
            return np.full(len(X), int(self.labels_[0]), dtype=int)
        V = self.transform(X)
        labels = self._knn.predict(V).astype(int)
        if self._knn_clustered_only and self._radius > 0:
            # the training rule (noise within the radius of a cluster joins it) applied to new
            # pages: farther than the radius from every clustered page is an outlier
            dist, _ = self._knn.kneighbors(V, n_neighbors=1)
            labels[dist[:, 0] > self._radius] = -1
        if getattr(self, "folder_cuts_", None) or getattr(self, "marker_cuts_", None):
            urls = urls if urls is not None else [getattr(x, "url", None) for x in X]
            labels = np.array([self.part_of(label, url) for label, url in zip(labels.tolist(), urls)], dtype=int)
        return labels

    def part_of(self, label: int, url: str | None) -> int:
        """The part of structural cluster ``label`` that a page at ``url`` falls in: its
        section's (:meth:`section_part`), then its file name's (:meth:`name_part`). Only the
        URL is read, so a crawl can tell the part of a link it has not fetched, were the page to
        fall in that cluster."""
        return self.name_part(self.section_part(label, url), url)

    def section_part(self, label: int, url: str | None) -> int:
        """The part of ``label`` the cut by section (``folder_cuts_``) gives a page at ``url``:
        ``label`` itself for a cluster not cut, a section the sample never cut, or no URL."""
        cuts = getattr(self, "folder_cuts_", None) or {}   # a learner put together by hand has none
        if url and label in cuts:
            parts = cuts[label]
            inner = path_in_section(url, self.folder_root_) if self.section_copies_ == "apart" else None
            copy = parts.get(COPY_KEY + inner) if inner is not None else None
            return int(copy if copy is not None else parts.get(top_folder(url, self.folder_root_), label))
        return int(label)

    def name_part(self, label: int, url: str | None) -> int:
        """The part of ``label`` (a structural cluster or a section part) the cut by file name
        (``marker_cuts_``) gives a page at ``url``: ``label`` for a name the cut did not part."""
        by_marker = getattr(self, "marker_cuts_", None) or {}
        if url and label in by_marker:
            part = name_part_of(by_marker[label], url, self.marker_cut_)
            return int(label if part is None else part)
        return int(label)

    def is_hub(self, label: int, url: str | None) -> bool:
        """Whether a page at ``url`` in structural cluster ``label`` is a hub, which a UCC crawl
        with ``ucc_recurring: hub`` values by its links alone: one of the names that recur from
        folder to folder in the part of ``label`` its section falls in
        (:func:`name_cuts.is_recurring`)."""
        if not url:
            return False
        section = self.section_part(label, url)
        cuts = getattr(self, "marker_cuts_", None) or {}
        return section in cuts and is_recurring(cuts[section], url, self.marker_cut_)

    def fit_predict(self, X, y=None, **kw) -> np.ndarray:
        return self.fit(X, **kw).labels_

    # -- serialisation (the JSON form: :mod:`crawlplan.source.sitemap_format`) -------------------
    def to_dict(self) -> dict:
        return sitemap_format.to_dict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | dict) -> SitemapLearner:
        params, kind_model, state = sitemap_format.read(json.loads(text) if isinstance(text, str) else text)
        self = cls(LearnerSettings.from_params(params))
        for name, value in state.items():
            setattr(self, name, value)
        self._set_vocabulary(self.vocabulary_)
        self.clusters_ = sorted(int(c) for c in set(self.structural(self.labels_).tolist()))
        self.n_clusters_ = int(self.labels_.max() + 1) if len(self.labels_) else 0
        self.outlier_share_ = float(np.mean(self.labels_ == -1)) if len(self.labels_) else 0.0
        self.kind_model_ = None if kind_model is None else cls.from_json(kind_model)
        self.kind_labels_ = self._joined(self._unjoined_kinds())
        if hasattr(self, "navigation_"):
            self.adjacency_ = nav.adjacency(self.navigation_, self.clusters_)
            self.nav_entropy_ = nav.mean_row_entropy(self.navigation_)
        self._fit_knn()
        return self
