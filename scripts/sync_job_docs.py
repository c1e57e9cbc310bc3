"""Keep each job page's quote of conf/defaults.yaml true: docs/jobs/<node>.md shows its node's
section of the defaults in a ```yaml block under "## Configuration (`conf/defaults.yaml`, section
`<dotted>`)". A default changed in conf/defaults.yaml and not in the page tells users defaults the
code no longer has (issue 30's round 14 found every page but two stale).

    .venv/bin/python scripts/sync_job_docs.py           # rewrite the stale blocks, list them
    .venv/bin/python scripts/sync_job_docs.py --check   # list them, exit 1 if any (what the test asks)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HEADING = "## Configuration (`conf/defaults.yaml`, section `"


def conf_section_lines(conf: list[str], dotted: str) -> list[str]:
    """The lines of ``dotted``'s section of conf/defaults.yaml as written, its comments kept,
    dedented to its own key."""
    start, parts = 0, dotted.split(".")
    for depth, key in enumerate(parts):
        start = next(i for i in range(start, len(conf)) if conf[i].split("#")[0].rstrip() == "  " * depth + key + ":")
    inner, end = "  " * len(parts), start + 1
    while end < len(conf) and (conf[end].startswith(inner) or not conf[end].strip()):
        end += 1
    block = [line[2 * (len(parts) - 1):] for line in conf[start:end]]
    while not block[-1].strip():
        block.pop()
    return block


def quoted_sections(repo: Path = REPO) -> list[tuple[Path, str, int, int]]:
    """(page, dotted section, first and end line of its yaml block) for every job page that
    quotes a section."""
    out = []
    for page in sorted((repo / "docs" / "jobs").glob("*.md")):
        lines = page.read_text().splitlines()
        heads = [i for i, line in enumerate(lines) if line.startswith(HEADING)]
        if heads:
            dotted = lines[heads[0]][len(HEADING):].split("`", 1)[0]
            start = lines.index("```yaml", heads[0]) + 1
            out.append((page, dotted, start, lines.index("```", start)))
    return out


def stale_pages(repo: Path = REPO, *, fix: bool = False) -> list[str]:
    """The job pages whose quote differs from conf/defaults.yaml (rewritten when ``fix``)."""
    conf = (repo / "conf" / "defaults.yaml").read_text().splitlines()
    stale = []
    for page, dotted, start, end in quoted_sections(repo):
        lines = page.read_text().splitlines()
        want = conf_section_lines(conf, dotted)
        if lines[start:end] != want:
            stale.append(f"{page.name} ({dotted})")
            if fix:
                lines[start:end] = want
                page.write_text("\n".join(lines) + "\n")
    return stale


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="only list the stale pages; exit 1 if any")
    args = ap.parse_args(argv)
    stale = stale_pages(fix=not args.check)
    for name in stale:
        print(("stale: " if args.check else "rewritten: ") + name)
    return 1 if stale and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
