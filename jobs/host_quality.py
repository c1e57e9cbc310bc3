"""spark-submit entry of the pipeline node `host_quality`: the same arguments as `crawlplan job host_quality`."""

import sys

from crawlplan.dag.entry import main

if __name__ == "__main__":
    sys.exit(main("host_quality"))
