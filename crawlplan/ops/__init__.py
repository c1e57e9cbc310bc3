"""Operations: packaging for executors, spark-submit command lines and Airflow DAGs generated
from the pipeline files, so scheduled cluster runs never drift from ``pipelines/*.yaml``."""
