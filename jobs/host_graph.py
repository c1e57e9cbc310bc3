"""spark-submit entry of the pipeline node `host_graph`: the same arguments as `crawlplan job host_graph`."""

import sys

from crawlplan.dag.entry import main

if __name__ == "__main__":
    sys.exit(main("host_graph"))
