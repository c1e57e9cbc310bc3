"""CLI verbs of the policies domain: ``crawlplan export budgets`` and ``crawlplan simulate calibrated``."""

from __future__ import annotations

from crawlplan.dag.arguments import add_conf_arguments


def register(subparsers) -> None:
    ex = subparsers.add_parser("export", help="export a dataset for crawlers (budgets: tables and native crawler files)")
    ex_sub = ex.add_subparsers(dest="export_what", required=True)
    b = ex_sub.add_parser("budgets", help="write the budgets dataset as a table (csv | parquet | jsonl) or as the "
                                          "native files of a crawler (heritrix | cc-nutch | nutch | urlfrontier)")
    b.add_argument("--input", default="out/budgets", help="budgets dataset folder (default out/budgets)")
    b.add_argument("--format", required=True, metavar="FORMAT",
                   help="csv | parquet | jsonl: one file; heritrix | cc-nutch | nutch | urlfrontier: a folder; "
                        "all: every format into --out")
    b.add_argument("--out", required=True, help="output file (tables) or folder (crawler formats, all)")
    b.add_argument("--scheme", default="https", help="URL scheme of seed URLs (default https)")
    b.add_argument("--plans", default=None,
                   help="host_plans dataset (SOUrCe within-host plans) to attach per host; default: the "
                        "host_plans folder beside --input when it exists; 'none' to leave them out")
    b.add_argument("--page-clusters", default=None,
                   help="page_clusters dataset: URL patterns and seed URLs of the planned clusters; default: "
                        "the page_clusters folder beside --input when it exists; 'none' to leave them out")
    b.add_argument("--sitemaps", default=None,
                   help="sitemaps dataset: where each plan row's links lead (navigation table); default: the "
                        "sitemaps folder beside --input when it exists; 'none' to leave it out")
    b.add_argument("--plan-top", type=int, default=5, help="plan rows kept per host (default 5)")
    b.add_argument("--segments", type=int, default=1,
                   help="cc-nutch / nutch: segments per generate call (limits are per segment; default 1)")
    b.add_argument("--fetch-interval", type=int, default=2_592_000,
                   help="nutch.fetchInterval of the seeds in seconds (default 2592000, Nutch's 30 days)")
    b.add_argument("--precedence-levels", type=int, default=8,
                   help="heritrix: queue precedence bands the host ranks are cut into (default 8)")
    b.add_argument("--partition-pages", type=int, default=100_000,
                   help="cc-nutch: pages per fetcher partition of one domain (default 100000)")
    b.add_argument("--crawl-id", default="", help="urlfrontier: crawlID of the items and limits (default: none)")
    b.add_argument("--hostdb", default="crawl/hostdb", help="nutch: HostDB path for generate.hostdb")
    add_conf_arguments(b)
    b.set_defaults(func="crawlplan.policies.commands:cmd_export_budgets")

    sim = subparsers.add_parser("simulate", help="crawl-policy simulations outside the DAG")
    sim_sub = sim.add_subparsers(dest="simulate_what", required=True)
    c = sim_sub.add_parser("calibrated", help="the RQ2/RQ3 sweeps on a population calibrated to the paper")
    c.add_argument("--hosts", type=int, default=532_628, help="hosts (default 532,628 as in the paper)")
    c.add_argument("--seeds", type=int, default=5, help="seeds 0..N-1 (each: new population and page order)")
    c.add_argument("--budgets", default="", help="comma-separated budget shares (default: the conf's sweep)")
    c.add_argument("--group-effect", type=float, default=1.0,
                   help="scale of language/TLD-category quality shifts (0 = groups carry no signal)")
    c.add_argument("--min-pages", type=int, default=3,
                   help="keep hosts with at least this many pages (the paper's stricter depth inclusion)")
    c.add_argument("--groups", action="store_true",
                   help="ablation: eb_adaptive with language x TLD-category priors (default: one global prior)")
    c.add_argument("--no-sizes", action="store_true", help="ablation: eb_adaptive ignores host sizes")
    c.add_argument("--out", default="out/calibrated", help="folder for CSV tables, comparison.md and PNG figures")
    c.add_argument("--no-figures", action="store_true")
    c.set_defaults(func="crawlplan.policies.commands:cmd_simulate_calibrated")

