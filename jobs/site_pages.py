"""spark-submit entry of the pipeline node `site_pages`: the same arguments as `crawlplan job site_pages`."""

import sys

from crawlplan.dag.entry import main

if __name__ == "__main__":
    sys.exit(main("site_pages"))
