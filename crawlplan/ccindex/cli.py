"""``crawlplan index build``: a columnar URL index in Common Crawl's schema for any WARC files."""

from __future__ import annotations

from crawlplan.dag.arguments import add_conf_arguments


def register(subparsers) -> None:
    index = subparsers.add_parser("index", help="Common Crawl's columnar URL index (cc-index-table)")
    verbs = index.add_subparsers(dest="index_command", required=True)
    p = verbs.add_parser("build", help="write a columnar index in Common Crawl's schema for WARC files, so that "
                                       "extract.mode=sampled can read them by byte range")
    p.add_argument("--warc", nargs="+", required=True, metavar="PATH",
                   help="WARC files, globs or a warc.paths.gz listing")
    p.add_argument("--out", required=True, metavar="DIR", help="index root (crawl=/subset= partitions are made)")
    p.add_argument("--base", default="", metavar="DIR",
                   help="write warc_filename relative to this folder (as Common Crawl's are to s3://commoncrawl/)")
    p.add_argument("--warc-base", default="", help="prefix for relative entries of a listing")
    p.add_argument("--jobs", type=int, default=1, help="files indexed in parallel (processes)")
    p.add_argument("--crawl", default="", metavar="ID",
                   help="crawl partition for files that name no CC-MAIN-YYYY-WW crawl (conf index.crawl)")
    p.add_argument("--json", action="store_true", help="print the per-file summary")
    add_conf_arguments(p)
    p.set_defaults(func="crawlplan.ccindex.commands:cmd_index_build")

