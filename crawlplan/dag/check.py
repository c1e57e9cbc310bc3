"""``python -m crawlplan.dag.check NODE JOB-ARGUMENTS``: exit 0 when the node's completion marker
is current (the job would skip), 1 otherwise, read in this process without a JVM. The printed
submit script and the Airflow DAG run it before a node's spark-submit, whose JVM start is most of
what a skipped node costs (docs/cluster.md, "Measured here")."""

import sys

from crawlplan.dag.entry import check_main

if __name__ == "__main__":
    sys.exit(check_main())
