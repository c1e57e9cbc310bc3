"""spark-submit entry of the pipeline node `correlations`: the same arguments as `crawlplan job correlations`."""

import sys

from crawlplan.dag.entry import main

if __name__ == "__main__":
    sys.exit(main("correlations"))
