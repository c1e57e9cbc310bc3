"""spark-submit entry of the pipeline node `simulate`: the same arguments as `crawlplan job simulate`."""

import sys

from crawlplan.dag.entry import main

if __name__ == "__main__":
    sys.exit(main("simulate"))
