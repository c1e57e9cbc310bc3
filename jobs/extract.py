"""spark-submit entry of the pipeline node `extract`: the same arguments as `crawlplan job extract`."""

import sys

from crawlplan.dag.entry import main

if __name__ == "__main__":
    sys.exit(main("extract"))
