"""spark-submit entry of the pipeline node `report`: the same arguments as `crawlplan job report`."""

import sys

from crawlplan.dag.entry import main

if __name__ == "__main__":
    sys.exit(main("report"))
