"""spark-submit entry of the pipeline node `classify`: the same arguments as `crawlplan job classify`."""

import sys

from crawlplan.dag.entry import main

if __name__ == "__main__":
    sys.exit(main("classify"))
