#!/usr/bin/env bash
# Tools some tests need beyond .venv: headless Chromium (report browser test), a separate
# Airflow venv (the generated DAG is imported and run by `airflow dags test` against the loopback
# Spark cluster of scripts/spark-cluster.sh; Airflow's pins clash with ours) and a
# crawl venv (pywb replay server + Scrapy for the closed-loop crawl test; pywb pins its own stack).
# Each test skips with a clear reason when its tool is missing; this script makes them present.
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/install-chromium.sh || echo "test-extras: chromium could not be installed; the browser test will skip"
if [ ! -x .venv-airflow/bin/python ] || ! .venv-airflow/bin/python -c "import airflow, airflow.providers.apache.spark" 2>/dev/null; then
  echo "test-extras: creating .venv-airflow (Airflow DAG import test)"
  python3 -m venv .venv-airflow \
    && .venv-airflow/bin/python -m pip install -q --upgrade pip \
    && .venv-airflow/bin/python -m pip install -q apache-airflow apache-airflow-providers-apache-spark \
    || echo "test-extras: Airflow could not be installed; the Airflow test will skip"
fi
if [ ! -x .venv-crawl/bin/python ] || ! .venv-crawl/bin/python -c "import pywb, scrapy, warcio" 2>/dev/null; then
  echo "test-extras: creating .venv-crawl (pywb + Scrapy: closed-loop crawl test, crawlplan crawl-loop)"
  python3 -m venv .venv-crawl \
    && .venv-crawl/bin/python -m pip install -q --upgrade pip \
    && .venv-crawl/bin/python -m pip install -q "pywb==2.10.*" "scrapy==2.19.*" "warcio>=1.7.4" \
    || echo "test-extras: pywb/Scrapy could not be installed; the closed-loop crawl test will skip"
fi
exit 0
