"""crawlplan: crawl plans for LLM pretraining data from Common Crawl, as a DAG of PySpark jobs."""

__version__ = "0.1.0"
