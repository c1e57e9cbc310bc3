"""spark-submit entry of the pipeline node `allocate`: the same arguments as `crawlplan job allocate`."""

import sys

from crawlplan.dag.entry import main

if __name__ == "__main__":
    sys.exit(main("allocate"))
