"""The SOUrCe sitemap learner: bag-of-XPaths clustering plus the Apath navigation table.

``SitemapLearner`` follows scikit-learn's estimator conventions: its constructor argument (a
:class:`LearnerSettings`, built from conf ``source.sitemaps`` by ``from_params``) holds the
parameters, ``fit`` learns, learned state ends in ``_``. It serialises to plain JSON (no pickle)
so a crawler in another process or language can load the sitemap and classify pages.

Two configurations (``method``):
- ``paper``: the method as published — tag-only leaf XPaths, eps from the K-dist histogram,
  DBSCAN(minPts = 4). ``num_bins`` picks between the authors' code (NumFeats / w, ``div``) and
  the paper text (w * NumFeats, ``mul``).
- ``default``: what held up on every labelled site we have (two real documentation sites, five
  forums; sweep in ``bench/source_sweep.py``; sixteen sites left out one at a time, tables in
  docs/source.md). The changes, each because the paper's choice was fitted to six social sites:
  * features: every element's path (not only leaves) with the first class token on every step
    (``xpath_classes: elements``) — sites built on one layout template (Sphinx) differ in their
    content containers (``dl[py]`` API entries, ``div[highlight]`` listings), which tag-only
    leaf paths cannot see;
  * L2 instead of L1 normalisation (Euclidean on L2 vectors is cosine distance): L1 vectors of
    long pages have tiny coordinates, so the K-dist curve of a large, varied site compresses and
    one eps either collapses or shatters it;
  * eps by selection (``eps_rule: select``): the paper's histogram eps and the K-dist quantiles
    0.50..0.95 are candidates, and the one maximising silhouette x (share clustered)^2 wins — an
    unsupervised criterion with no site-specific constant (the squared share stops dropping
    hard pages as outliers from paying).
  * noise near a cluster joins it (``noise_radius``: 4 x eps), and prediction uses the same
    rule, so a page near a training outlier is not an outlier itself (leave-one-site-out over 16
    sites, docs/source.md "Sites it has never seen").
  * the target crawl learns online (``target_feedback``): each (cluster, Apath) row's chance
    of leading to the target cluster starts at the navigation table's value, weighted as 5
    pages, and is updated by what the crawler's own classifier says about the pages it fetched
    through that row, so branches that yield no targets stop being expanded.
  * the target crawl also reads the example page's URL (``target_url: family``): links into the
    example's folder (same depth) are target links whatever the cluster says, unless that
    folder holds more than 90% of the sample. Sphinx renders release notes, topics and how-tos
    with one template, so one cluster holds them all; the folder tells them apart (leave-one-
    site-out, docs/source.md).
  * clusters that one URL kind holds are one cluster (``url_merge`` 2/3): when at least two
    thirds of each of two clusters' sample pages sit in the same folder with the same file-name
    kind marker (in a folder holding the whole site: the same leading or trailing marker,
    gi-docgen's ``method.*``), the structure split one kind of page by length or optional
    sections (pytest's release notes, a forum's threads, pango's methods) (leave-one-site-out,
    docs/source.md).
  * a cluster spanning sections of the site is cut by section (``folder_cut: sections``) unless
    the sections are namespaces of one kind — another cluster holds them in the same proportions
    (javadoc's ``org/`` and ``junit/``) — or the file names mark the kind (rustdoc's
    ``struct.*``): Sphinx renders Python's tutorial, library and what's-new with one template,
    and only the section tells them apart; prediction places a page by its section too
    (:func:`cut_by_folder`; leave-one-site-out, docs/source.md).
  * the target crawl scores a link by the targets gained per page fetched (``target_score:
    rate``): (P(target) + Y) / (1 + Y), Y the distinct target links a page of the destination
    cluster yields in the sample, so a hub listing new targets outranks an unlikely target and
    overlapping tag pages rank below disjoint thread lists (leave-one-site-out, docs/source.md).
  * Balance takes at most half of a UCC link's score (``balance_weight`` 0.5): with the
    paper's full Balance a site of two or three clusters is pushed into its non-content cluster
    as soon as the content cluster leads (scrapy's source listings).
  The earlier guard (histogram eps, re-chosen only when the site collapses or shatters) stays as
  ``eps_rule: guarded``; HDBSCAN as ``clusterer: hdbscan``.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from crawlplan.conf import Settings, settings_from
from crawlplan.source import navigation as nav
from crawlplan.source.eps import MIN_EPS, eps_by_silhouette, eps_from_histogram, kdist
from crawlplan.source.features import XPATH_CLASS_MODES, extract
from crawlplan.source.target import TARGET_SCORES
from crawlplan.source.url_kinds import (
    MOSTLY,
    cut_by_folder,
    folder_root,
    merge_by_url_kind,
    prefix_counts,
    top_folder,
    url_kind_clusters,
)

METHODS = ("default", "paper")
TARGET_URL_MODES = ("off", "family")
FOLDER_CUT_MODES = ("off", "sections")
FORMAT = "crawlplan.sitemap/3"   # 2: the sample yields a target crawl ranks hubs by; 3: the cuts by section


@dataclass(frozen=True)
class LearnerSettings(Settings):
    """The learner's parameters: the learner keys of conf section ``source.sitemaps`` (values and
    meaning: conf/defaults.yaml). A parameter that is None (``""`` in the conf) takes the
    ``method``'s preset (the resolved ``SitemapLearner.<name>_`` properties)."""
    SECTION = "source.sitemaps"
    method: str
    min_pts: int
    xpath_classes: str | None
    clusterer: str | None
    num_bins: str
    eps: float | None
    norm: str | None
    eps_rule: str | None
    w_table: dict[int, float]
    max_outlier_share: float
    min_clusters: int
    n_neighbors: int | None
    alpha_ucc: float
    alpha_target: float
    noise_radius: float | None
    target_feedback: float | None
    balance_weight: float | None
    target_url: str | None
    binary_tf: bool
    max_df: float
    url_merge: float | None
    target_score: str | None
    folder_cut: str | None

    def __post_init__(self):
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {self.method!r}")

    @classmethod
    def from_params(cls, params: dict, **derived) -> LearnerSettings:
        """Whole numbers are checked before they are typed (``int`` would cut 2.5 to 2)."""
        for key, least in (("min_pts", 1), ("min_clusters", 0), ("n_neighbors", 1)):
            value = params.get(key)      # a missing key is settings_from's error, naming it
            if key not in params or (key == "n_neighbors" and value in (None, "")):
                continue
            whole = isinstance(value, (int, float)) and not isinstance(value, bool) and float(value).is_integer()
            if not whole or value < least:
                raise ValueError(f"{cls.SECTION}.{key} must be an integer >= {least}, got {value!r}")
        return settings_from(cls, params, cls.SECTION, **derived)


_PARAMS = tuple(f.name for f in dataclasses.fields(LearnerSettings))


class SitemapLearner:
    """Cluster a site's pages by structure and learn where each (cluster, Apath) leads.

    The one constructor argument is a :class:`LearnerSettings` (``LearnerSettings.from_params``
    over conf section ``source.sitemaps``); its fields read as the learner's parameters
    (``learner.min_pts``), and a None field takes the ``method``'s preset (``learner.norm_``).
    """

    def __init__(self, settings: LearnerSettings):
        if not isinstance(settings, LearnerSettings):
            raise TypeError(f"SitemapLearner takes a LearnerSettings, got {type(settings).__name__}")
        self.settings = settings

    def __getattr__(self, name: str):
        settings = self.__dict__.get("settings")   # absent while unpickling
        if settings is not None and name in _PARAMS:   # a parameter: the settings' field (``learner.param``)
            return getattr(settings, name)
        raise AttributeError(f"{type(self).__name__!s} has no attribute {name!r}")

    # -- resolved parameters --------------------------------------------------------------
    @property
    def xpath_classes_(self) -> str:
        return self.xpath_classes or ("none" if self.method == "paper" else "elements")

    @property
    def norm_(self) -> str:
        return self.norm or ("l1" if self.method == "paper" else "l2")

    @property
    def clusterer_(self) -> str:
        return self.clusterer or "dbscan"

    @property
    def noise_radius_(self) -> float:
        if self.noise_radius is not None:
            return float(self.noise_radius)
        return 0.0 if self.method == "paper" else 4.0

    @property
    def target_feedback_(self) -> float:
        """Prior strength (in pages) of the navigation table in the target crawl's online
        update; 0 = the paper's fixed scores."""
        if self.target_feedback is not None:
            return float(self.target_feedback)
        return 0.0 if self.method == "paper" else 5.0

    @property
    def balance_weight_(self) -> float:
        """How much of the UCC score Balance may take away: (1 - w) + w x Balance; 1 = paper."""
        if self.balance_weight is not None:
            return float(self.balance_weight)
        return 1.0 if self.method == "paper" else 0.5

    @property
    def target_url_(self) -> str:
        """``family``: the target crawl also takes the example page's URL family (its folder and
        depth, narrowed to its file-name kind where the folder mixes kinds; see
        ``target.example_family``) as a sign of the target; ``off``: structure only."""
        if self.target_url is not None:
            return self.target_url
        return "off" if self.method == "paper" else "family"

    @property
    def target_score_(self) -> str:
        """How a target crawl scores a link (``target.TargetFeedback``): ``paper`` = alpha
        P(C_t) + (1 - alpha) x the HITS hub score behind the link (all target links of a
        cluster's sampled pages); ``yield`` = the same blend with each cluster's hub worth the
        distinct target links one sampled page of it yields (:func:`navigation.sample_yields`);
        ``rate`` = targets per page fetched, (P(C_t) + Y) / (1 + Y) with Y those yields in
        links (counted by URL when the target is the example's URL family)."""
        if self.target_score is not None:
            return self.target_score
        return "paper" if self.method == "paper" else "rate"

    @property
    def url_merge_(self) -> float:
        """Clusters that each have at least this share of their sample pages in one URL kind
        (:func:`merge_by_url_kind`) become one; 0 = structure only (the paper)."""
        if self.url_merge is not None:
            return self.url_merge
        return 0.0 if self.method == "paper" else MOSTLY

    @property
    def folder_cut_(self) -> str:
        """``sections``: a cluster spanning sections of the site that are not namespaces of one
        kind is cut by section (:func:`cut_by_folder`); ``off``: structure (and merges) only."""
        if self.folder_cut is not None:
            return self.folder_cut
        return "off" if self.method == "paper" else "sections"

    @property
    def eps_rule_(self) -> str:
        return self.eps_rule or ("histogram" if self.method == "paper" else "select")

    def validate(self) -> SitemapLearner:
        """Check every parameter (as resolved from the preset); ``fit`` calls it, and the Spark
        node calls it on the driver so a typo fails the job instead of every site."""
        choices = {"xpath_classes": (self.xpath_classes_, XPATH_CLASS_MODES), "norm": (self.norm_, ("l1", "l2")),
                   "clusterer": (self.clusterer_, ("dbscan", "hdbscan")), "num_bins": (self.num_bins, ("div", "mul")),
                   "eps_rule": (self.eps_rule_, ("histogram", "guarded", "select")),
                   "target_url": (self.target_url_, TARGET_URL_MODES),
                   "target_score": (self.target_score_, TARGET_SCORES),
                   "folder_cut": (self.folder_cut_, FOLDER_CUT_MODES)}
        for name, (value, allowed) in choices.items():
            if value not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")
        if not isinstance(self.min_pts, int) or isinstance(self.min_pts, bool) or self.min_pts < 1:
            raise ValueError(f"min_pts must be an integer >= 1, got {self.min_pts!r}")
        for name in ("alpha_ucc", "alpha_target", "max_outlier_share", "balance_weight_"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not 0 <= value <= 1:
                raise ValueError(f"{name.rstrip('_')} must be in [0, 1], got {value!r}")
        if not isinstance(self.noise_radius_, (int, float)) or not self.noise_radius_ >= 0:
            raise ValueError(f"noise_radius must be >= 0 (a multiple of eps), got {self.noise_radius!r}")
        if not isinstance(self.target_feedback_, (int, float)) or not self.target_feedback_ >= 0:
            raise ValueError(f"target_feedback must be >= 0 (pages), got {self.target_feedback!r}")
        if not isinstance(self.max_df, (int, float)) or isinstance(self.max_df, bool) or not 0 < self.max_df <= 1:
            raise ValueError(f"max_df must be in (0, 1] (a share of the sample's pages), got {self.max_df!r}")
        if not isinstance(self.url_merge_, (int, float)) or isinstance(self.url_merge_, bool) \
                or not (self.url_merge_ == 0 or 0.5 < self.url_merge_ <= 1):
            raise ValueError(f"url_merge must be 0 (off) or a share in (0.5, 1], got {self.url_merge!r}")
        if not isinstance(self.binary_tf, bool):
            raise ValueError(f"binary_tf must be true or false, got {self.binary_tf!r}")
        if self.eps is not None and not (isinstance(self.eps, (int, float)) and self.eps > 0):
            raise ValueError(f"eps must be > 0 when given, got {self.eps!r}")
        return self

    def get_params(self, deep: bool = True) -> dict:
        """scikit-learn's: the constructor's arguments."""
        return {"settings": self.settings}

    # -- features ---------------------------------------------------------------------------
    def featurize(self, url: str, html):
        """Page features in this learner's XPath variant (what a crawler calls per fetched page)."""
        return extract(url, html, xpath_classes=self.xpath_classes_)

    def _bags(self, X) -> list[Mapping[str, int]]:
        return [getattr(x, "xpaths", x) for x in X]

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
            links: Sequence[Sequence[tuple[str, str]]] | None = None, resolve=None):
        """X: per page a bag of leaf XPaths (mapping path -> count) or a PageFeatures.
        With ``urls`` (and ``links``, taken from PageFeatures when absent) the navigation
        table, adjacency and HITS scores are learned as well."""
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
        self.vocabulary_ = sorted(p for p, d in df.items() if d >= theta and d <= self.max_df * n)
        self._index = {p: i for i, p in enumerate(self.vocabulary_)}
        self.idf_ = np.array([math.log2(n / df[p]) for p in self.vocabulary_], dtype=float)
        self.n_features_ = len(self.vocabulary_)
        Xv = self.transform(bags)
        self.train_vectors_ = Xv
        labels = self._attach_noise(Xv, self._cluster(Xv))
        self.url_merged_ = 0
        if urls is not None and self.url_merge_ > 0:
            merged = merge_by_url_kind(labels, urls, self.url_merge_)
            self.url_merged_ = len(set(labels.tolist())) - len(set(merged.tolist()))
            labels = merged
        self.folder_root_, self.folder_cuts_ = "/", {}
        if urls is not None and self.folder_cut_ == "sections":
            self.folder_root_ = folder_root(urls)
            labels, self.folder_cuts_ = cut_by_folder(labels, urls, self.min_pts, root=self.folder_root_)
        self.labels_ = labels
        self.n_clusters_ = int(self.labels_.max() + 1) if n else 0
        self.outlier_share_ = float(np.mean(self.labels_ == -1))
        self._fit_knn()
        self._cluster_stats(Xv)
        if urls is not None:
            self.url_kind_clusters_ = url_kind_clusters(urls, self.structural(self.labels_).tolist())
            self.url_families_ = prefix_counts(self.url_kind_clusters_)
            if links is None:
                links = [getattr(x, "links", []) for x in X]
            self.fit_navigation(urls, links, resolve=resolve)
        return self

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
        cuts = getattr(self, "folder_cuts_", None)
        if not cuts:
            return labels
        parent_of = {part: parent for parent, parts in cuts.items() for part in parts.values()}
        return np.array([parent_of.get(c, c) for c in labels.tolist()], dtype=int)

    def _cluster_stats(self, Xv) -> None:
        labels = self.structural(self.labels_)
        self.clusters_ = sorted(int(c) for c in set(labels.tolist()))
        sizes, spread = {}, {}
        for c in self.clusters_:
            members = Xv[labels == c]
            sizes[c] = int(members.shape[0])
            centroid = np.asarray(members.mean(axis=0)).ravel()
            diff = members.toarray() - centroid
            spread[c] = float(np.sqrt((diff ** 2).sum(axis=1)).mean())
        self.cluster_sizes_ = sizes
        self.dsim_ = nav.normalise_dsim(spread)

    def fit_navigation(self, urls, links, resolve=None):
        structural = self.structural(self.labels_).tolist()
        labels = {u: int(c) for u, c in zip(urls, structural)}
        self.navigation_ = nav.navigation_counts(list(urls), structural, links, labels, resolve=resolve)
        self.adjacency_ = nav.adjacency(self.navigation_, self.clusters_)
        self.hubs_, self.authorities_ = nav.hits(self.adjacency_, self.clusters_)
        self.nav_entropy_ = nav.mean_row_entropy(self.navigation_)
        self.cluster_yield_, self.kind_yield_ = nav.sample_yields(
            structural, links, self.navigation_, resolve=resolve)
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
        cuts = getattr(self, "folder_cuts_", None)   # a learner put together by hand has none
        if cuts:
            urls = urls if urls is not None else [getattr(x, "url", None) for x in X]
            for i, (label, url) in enumerate(zip(labels.tolist(), urls)):
                if label in cuts and url:
                    labels[i] = cuts[label].get(top_folder(url, self.folder_root_), label)
        return labels

    def fit_predict(self, X, y=None, **kw) -> np.ndarray:
        return self.fit(X, **kw).labels_

    # -- serialisation ----------------------------------------------------------------------
    def to_dict(self) -> dict:
        V = self.train_vectors_
        out = {
            "format": FORMAT, "params": dataclasses.asdict(self.settings), "vocabulary": self.vocabulary_,
            "idf": self.idf_.tolist(), "labels": self.labels_.tolist(),
            "train": {"data": V.data.tolist(), "indices": V.indices.tolist(), "indptr": V.indptr.tolist()},
            "eps": None if math.isnan(self.eps_) else self.eps_, "eps_source": self.eps_source_,
            "cluster_sizes": {str(k): v for k, v in self.cluster_sizes_.items()},
            "dsim": {str(k): v for k, v in self.dsim_.items()},
        }
        if hasattr(self, "navigation_"):
            out["navigation"] = nav.navigation_to_rows(self.navigation_)
            out["hubs"] = {str(k): v for k, v in self.hubs_.items()}
            out["authorities"] = {str(k): v for k, v in self.authorities_.items()}
            out["cluster_yield"] = {str(i): {str(j): v for j, v in row.items()}
                                    for i, row in self.cluster_yield_.items()}
            out["kind_yield"] = {str(i): fams for i, fams in self.kind_yield_.items()}
        out["folder_cuts"] = {"root": self.folder_root_,
                              "cuts": {str(c): parts for c, parts in self.folder_cuts_.items()}}
        if hasattr(self, "url_families_"):
            out["url_families"] = self.url_families_
        if hasattr(self, "url_kind_clusters_"):
            out["url_kind_clusters"] = {family: {prefix: {str(c): n for c, n in by_cluster.items()}
                                                 for prefix, by_cluster in prefixes.items()}
                                        for family, prefixes in self.url_kind_clusters_.items()}
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | dict) -> SitemapLearner:
        data = json.loads(text) if isinstance(text, str) else text
        if data.get("format") != FORMAT:
            raise ValueError(f"not a crawlplan sitemap of this version (format {data.get('format')!r}, expected "
                             f"{FORMAT}): learn it again with `crawlplan sitemap`")
        self = cls(LearnerSettings.from_params(data["params"]))
        self.vocabulary_ = list(data["vocabulary"])
        self._index = {p: i for i, p in enumerate(self.vocabulary_)}
        self.n_features_ = len(self.vocabulary_)
        self.idf_ = np.asarray(data["idf"], dtype=float)
        self.labels_ = np.asarray(data["labels"], dtype=int)
        t = data["train"]
        self.train_vectors_ = sparse.csr_matrix((t["data"], t["indices"], t["indptr"]),
                                                shape=(len(self.labels_), self.n_features_))
        self.eps_ = float("nan") if data["eps"] is None else float(data["eps"])
        self.eps_source_ = data.get("eps_source", "given")
        cuts = data["folder_cuts"]
        self.folder_root_ = str(cuts["root"])
        self.folder_cuts_ = {int(c): {section: int(part) for section, part in parts.items()}
                             for c, parts in cuts["cuts"].items()}
        self.clusters_ = sorted(int(c) for c in set(self.structural(self.labels_).tolist()))
        self.n_clusters_ = int(self.labels_.max() + 1) if len(self.labels_) else 0
        self.outlier_share_ = float(np.mean(self.labels_ == -1)) if len(self.labels_) else 0.0
        self.cluster_sizes_ = {int(k): v for k, v in data["cluster_sizes"].items()}
        self.dsim_ = {int(k): v for k, v in data["dsim"].items()}
        if "navigation" in data:
            self.navigation_ = nav.navigation_from_rows(data["navigation"])
            self.adjacency_ = nav.adjacency(self.navigation_, self.clusters_)
            self.hubs_ = {int(k): v for k, v in data["hubs"].items()}
            self.authorities_ = {int(k): v for k, v in data["authorities"].items()}
            self.nav_entropy_ = nav.mean_row_entropy(self.navigation_)
            self.cluster_yield_ = {int(i): {int(j): float(v) for j, v in row.items()}
                                   for i, row in data["cluster_yield"].items()}
            self.kind_yield_ = {int(i): fams for i, fams in data["kind_yield"].items()}
        if "url_families" in data:
            self.url_families_ = {family: {prefix: int(n) for prefix, n in prefixes.items()}
                                  for family, prefixes in data["url_families"].items()}
        if "url_kind_clusters" in data:
            self.url_kind_clusters_ = {family: {prefix: {int(c): int(n) for c, n in by_cluster.items()}
                                                for prefix, by_cluster in prefixes.items()}
                                       for family, prefixes in data["url_kind_clusters"].items()}
        self._fit_knn()
        return self
