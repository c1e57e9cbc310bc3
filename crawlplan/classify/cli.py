"""``crawlplan models list|pull|train-demo``: the classifier registry and its model cache."""

from __future__ import annotations

import argparse


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--conf", metavar="FILE", help="user config file layered over the profile")
    p.add_argument("--profile", default="local")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="overrides")


def register(subparsers) -> None:
    models = subparsers.add_parser("models", help="classifier registry and model cache (list, pull, train-demo)")
    sub = models.add_subparsers(dest="models_command", required=True)

    ls = sub.add_parser("list", help="registry entries with local availability, size and pin status")
    ls.add_argument("--long", action="store_true", help="also print paths and notes")
    ls.add_argument("--no-verify", action="store_true", help="do not hash pinned files")
    _common(ls)
    ls.set_defaults(func="crawlplan.classify.commands:cmd_list")

    pl = sub.add_parser("pull", help="download model files from the Hugging Face Hub into the cache")
    pl.add_argument("names", nargs="*", metavar="NAME", help="classifiers to pull (default: all with a public repo)")
    pl.add_argument("--fail-fast", action="store_true")
    _common(pl)
    pl.set_defaults(func="crawlplan.classify.commands:cmd_pull")

    td = sub.add_parser("train-demo", help="train small demo fastText models (real label schemes) into the cache")
    td.add_argument("names", nargs="*", metavar="NAME", help="classifiers (default: every fastText entry)")
    td.add_argument("--force", action="store_true", help="retrain existing demo models (real models are kept)")
    _common(td)
    td.set_defaults(func="crawlplan.classify.commands:cmd_train_demo")

