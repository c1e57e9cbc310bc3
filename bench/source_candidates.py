"""The configurations `bench/source_loso.py` scores: the published method, the shipped default,
and every learner option measured on the labelled sites (docs/source.md, "Leave-one-site-out").

A name here is what `score --configs`, `crawls --config` and docs/source.md's commands cite, so a
name stays as written once a documented run used it; a new option gets a new entry.
"""

CANDIDATES = {
    "paper": {"method": "paper"},
    "default": {"method": "default"},
    "default, noise kept (noise_radius 0)": {"method": "default", "noise_radius": 0},
    "default, noise_radius 1": {"method": "default", "noise_radius": 1},
    "default, noise_radius 1.5": {"method": "default", "noise_radius": 1.5},
    "default, noise_radius 2": {"method": "default", "noise_radius": 2},
    "default, histogram eps": {"method": "default", "eps_rule": "histogram"},
    "default, tag-only leaf XPaths": {"method": "default", "xpath_classes": "none"},
    "default, target feedback off (0)": {"method": "default", "target_feedback": 0},
    "default, target feedback 2": {"method": "default", "target_feedback": 2},
    "default, target feedback 20": {"method": "default", "target_feedback": 20},
    "default, target feedback 5 (the default until issue 30)": {"method": "default", "target_feedback": 5},
    "default, full Balance (balance_weight 1)": {"method": "default", "balance_weight": 1},
    "default, balance_weight 0.25": {"method": "default", "balance_weight": 0.25},
    "default, structure-only target (target_url off)": {"method": "default", "target_url": "off"},
    "default, binary tf (presence x idf)": {"method": "default", "binary_tf": True},
    "default, layout paths dropped (max_df 0.5)": {"method": "default", "max_df": 0.5},
    "default, structure-only clusters (url_merge 0)": {"method": "default", "url_merge": 0},
    "default, no cut by section (folder_cut off)": {"method": "default", "folder_cut": "off"},
    "default, unmarked sections cut from a marked cluster (folder_cut unmarked_sections)": {
        "method": "default", "folder_cut": "unmarked_sections"},
    "default, a marked cluster kept whole by section (folder_cut sections, until round 21)": {
        "method": "default", "folder_cut": "sections"},
    "default, a marked cluster cut from its own unmarked names (unmarked_names cut)": {
        "method": "default", "unmarked_names": "cut"},
    "default, a marked cluster keeps its unmarked names (unmarked_names keep, until round 22)": {
        "method": "default", "unmarked_names": "keep"},
    "default, pages every section holds a part apart (section_copies apart)": {
        "method": "default", "section_copies": "apart"},
    "default, pages every section holds cut by section (section_copies cut, until round 23)": {
        "method": "default", "section_copies": "cut"},
    "default, kinds a repeated folder name names joined (kind_folder_join true)": {
        "method": "default", "kind_folder_join": True},
    "default, BFS guard with the tolerance as slack (crawl_guard_slack 0.02)": {"method": "default",
                                                                                "crawl_guard_slack": 0.02},
    "default, kinds of one kind section joined (kind_section_join true)": {
        "method": "default", "kind_section_join": True},
    "default, kinds parting one of the crawl's clusters in one section joined (kind_cluster_join true)": {
        "method": "default", "kind_cluster_join": True},
    "default, no kind parted by its pages' wrapper (kind_wrapper_cut 0, round 27's default)": {
        "method": "default", "kind_wrapper_cut": 0.0},
    "default, no listing names a target where its URL does not (target_listing 0, round 28's default)": {
        "method": "default", "target_listing": 0.0},
    "default, clusters cut by file-name kind marker (marker_cut markers)": {
        "method": "default", "marker_cut": "markers"},
    "default, clusters cut by the case pattern of dotted names (marker_cut shapes)": {
        "method": "default", "marker_cut": "shapes"},
    "default, no cut by marker (marker_cut off)": {"method": "default", "marker_cut": "off"},
    "default, clusters cut by name shape and by member names (marker_cut shapes_members)": {
        "method": "default", "marker_cut": "shapes_members"},
    "default, clusters cut by name shape and by names recurring from folder to folder (marker_cut shapes_recurring)": {
        "method": "default", "marker_cut": "shapes_recurring"},
    "default, clusters cut by recurring names and by member names (marker_cut shapes_recurring_members)": {
        "method": "default", "marker_cut": "shapes_recurring_members"},
    "default, recurring and member names cut, the UCC crawl takes recurring names for hubs "
    "(marker_cut shapes_recurring_members, ucc_recurring hub)": {
        "method": "default", "marker_cut": "shapes_recurring_members", "ucc_recurring": "hub"},
    "default, the crawl's clusters cut by recurring names alone (marker_cut shapes_recurring, until round 25)": {
        "method": "default", "marker_cut": "shapes_recurring"},
    "default, the crawl's clusters cut by recurring and member names, the kinds by recurring names "
    "(marker_cut shapes_recurring_members, kind_marker_cut shapes_recurring)": {
        "method": "default", "marker_cut": "shapes_recurring_members", "kind_marker_cut": "shapes_recurring"},
    "default, kinds read with their levels as written (kind_levels as_written)": {
        "method": "default", "kind_levels": "as_written"},
    "default, crawl states read with their levels collapsed (state_levels collapsed)": {
        "method": "default", "state_levels": "collapsed"},
    "default, one twin makes namespaces (namespace_test pairwise)": {
        "method": "default", "namespace_test": "pairwise"},
    "default, paper's target score (target_score paper)": {"method": "default", "target_score": "paper"},
    "default, likely targets first (target_score likely_first)": {"method": "default", "target_score": "likely_first"},
    "default, the target crawl seeks the example's kind (target_unit kind)": {"method": "default", "target_unit": "kind"},
    "default, the target crawl seeks the example's file-name part of its cluster (target_unit name_part)": {
        "method": "default", "target_unit": "name_part"},
    "default, the target crawl seeks the example's kind where the structure split it (target_unit split_kind)": {
        "method": "default", "target_unit": "split_kind"},
    "default, the target crawl seeks the example's whole cluster (target_unit cluster)": {
        "method": "default", "target_unit": "cluster"},
    "default, the UCC crawl values each cluster on its own (ucc_unit cluster)": {"method": "default", "ucc_unit": "cluster"},
    "default, the UCC crawl takes recurring names for hubs (ucc_recurring hub)": {"method": "default", "ucc_recurring": "hub"},
    "default, the sampler refilled when its queue runs dry (sampler apath_refill)": {"method": "default", "sampler": "apath_refill"},
    "default, the sampler refilled while under 50 pages (sample_floor 50)": {"method": "default", "sample_floor": 50},
    "default, the sampler never refilled (sample_floor 0)": {"method": "default", "sample_floor": 0},
    "default, the sampler refilled while under 100 pages (sample_floor 100)": {"method": "default", "sample_floor": 100},
    "default, the sampler refilled while under 200 pages (sample_floor 200)": {"method": "default", "sample_floor": 200},
    "default, target score blend with yield hubs (target_score yield)": {"method": "default", "target_score": "yield"},
    "default, targets per fetch (target_score rate)": {"method": "default", "target_score": "rate"},
    "default, no BFS guard (crawl_guard off)": {"method": "default", "crawl_guard": "off"},
    "default, no file-name kind markers (kind_markers off)": {"method": "default", "kind_markers": "off"},
    "default, kind markers in the clusters only (kind_markers clusters)": {"method": "default", "kind_markers": "clusters"},
    "default, kind markers in the target family only (kind_markers target)": {"method": "default", "kind_markers": "target"},
    "default, kind markers in the clusters and the target family (kind_markers all)": {"method": "default", "kind_markers": "all"},
    "default, link context on a one-template site (link_context flat)": {"method": "default", "link_context": "flat"},
    "default, minimum cluster share 2% (min_cluster_share 0.02)": {"method": "default", "min_cluster_share": 0.02},
    "default, smooth idf (idf smooth)": {"method": "default", "idf": "smooth"},
    "default, every cluster a kind (kinds clusters)": {"method": "default", "kinds": "clusters"},
    "default, no join of a kind's wrapper variants (kind_join 0)": {"method": "default", "kind_join": 0},
    "default, kinds of different sections joined at cosine 0.95 (kind_cross_join 0.95)": {
        "method": "default", "kind_cross_join": 0.95},
    "default, kinds of different sections joined at cosine 0.9 (kind_cross_join 0.9)": {
        "method": "default", "kind_cross_join": 0.9},
    "default, kinds of different sections joined at cosine 0.85 (kind_cross_join 0.85)": {
        "method": "default", "kind_cross_join": 0.85},
    "default, no kinds joined by a numbered file name (kind_numbered_join false, round 30's default)": {
        "method": "default", "kind_numbered_join": False},
    "default, no section's kind joined to a root-folder kind (kind_root_join 0, round 29's default)": {
        "method": "default", "kind_root_join": 0},
}
