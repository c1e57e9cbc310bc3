"""spark-submit entry of the pipeline node `sitemaps`: the same arguments as `crawlplan job sitemaps`."""

import sys

from crawlplan.dag.entry import main

if __name__ == "__main__":
    sys.exit(main("sitemaps"))
