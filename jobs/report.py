import sys

from crawlplan.dag.entry import main

sys.exit(main("report"))
