#!/usr/bin/env bash
# A Spark standalone cluster on this machine, for tests and for trying cluster runs by hand:
# one master and N workers (default 2), every process bound to 127.0.0.1 on ephemeral ports,
# each worker with its own work folder, executors on a Python that has crawlplan's dependencies
# but cannot import crawlplan itself (code reaches them only through --py-files / --archives).
#
#   scripts/spark-cluster.sh start [DIR]    start it; prints the master URL and DIR/submit.yaml
#   scripts/spark-cluster.sh status [DIR]   master URL and which of its processes are alive
#   scripts/spark-cluster.sh stop [DIR]     stop exactly the processes it started (by their pids)
#
# DIR (default: $CRAWLPLAN_CLUSTER_DIR or .cluster/ in the checkout) holds the pids, logs, the
# workers' work folders, the executors' Python (executor-python) and submit.yaml, the ops
# settings for `crawlplan submit` / `crawlplan airflow` against this master.
# Settings (environment): CRAWLPLAN_CLUSTER_WORKERS (2), CRAWLPLAN_CLUSTER_WORKER_CORES (1),
# CRAWLPLAN_CLUSTER_WORKER_MEMORY (1g, also the executors' heap), CRAWLPLAN_CLUSTER_PYTHON (the
# Python whose packages the executors get; default .venv/bin/python), CRAWLPLAN_CLUSTER_TIMEOUT (180 s),
# CRAWLPLAN_CLUSTER_NODE_PYTHON (the nodes' own interpreter, exported to the daemons as
# CRAWLPLAN_NODE_PYTHON for the launcher of `crawlplan package --venv`'s archive; default: the base
# interpreter of that Python, which has neither crawlplan nor its dependencies).
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
CMD=${1:-}
DIR=${2:-${CRAWLPLAN_CLUSTER_DIR:-$REPO/.cluster}}
WORKERS=${CRAWLPLAN_CLUSTER_WORKERS:-2}
CORES=${CRAWLPLAN_CLUSTER_WORKER_CORES:-1}
MEMORY=${CRAWLPLAN_CLUSTER_WORKER_MEMORY:-1g}
PY=${CRAWLPLAN_CLUSTER_PYTHON:-$REPO/.venv/bin/python}
TIMEOUT=${CRAWLPLAN_CLUSTER_TIMEOUT:-180}

die() { echo "spark-cluster: $*" >&2; exit 1; }

alive() {  # pid file -> 0 when that process still runs and is one of ours (a Spark daemon of DIR)
  local pid
  [ -f "$1" ] || return 1
  pid=$(cat "$1")
  [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q "org.apache.spark.deploy"
}

wait_for() {  # log file, pattern -> the first matching line, or fail after TIMEOUT seconds
  local waited=0 line
  while [ "$waited" -lt "$((TIMEOUT * 2))" ]; do
    line=$(grep -m1 -E "$2" "$1" 2>/dev/null || true)
    [ -n "$line" ] && { echo "$line"; return 0; }
    sleep 0.5; waited=$((waited + 1))
  done
  echo "spark-cluster: no '$2' in $1 after ${TIMEOUT}s; its tail:" >&2
  tail -20 "$1" >&2 || true
  return 1
}

daemon() {  # name, class, args... : start one Spark daemon in the foreground of its own session
  local name=$1; shift
  env -u PYTHONPATH -u PYSPARK_PYTHON -u PYSPARK_DRIVER_PYTHON -u SPARK_CONF_DIR \
    SPARK_HOME="$SPARK_HOME" CRAWLPLAN_NODE_PYTHON="$NODE_PY" SPARK_LOCAL_IP=127.0.0.1 SPARK_LOCAL_HOSTNAME=127.0.0.1 \
    SPARK_LOG_DIR="$DIR/logs" SPARK_DAEMON_MEMORY=256m SPARK_NO_DAEMONIZE=1 \
    setsid "$SPARK_HOME/bin/spark-class" "$@" --properties-file "$DIR/spark-daemons.conf" \
    >"$DIR/logs/$name.log" 2>&1 </dev/null &
  echo $! >"$DIR/$name.pid"
}

stop() {
  local f pid n
  for f in "$DIR"/worker-*.pid "$DIR"/master.pid; do
    [ -f "$f" ] || continue
    if alive "$f"; then
      pid=$(cat "$f"); kill "$pid" 2>/dev/null || true
      for n in $(seq 1 40); do [ -d "/proc/$pid" ] || break; sleep 0.25; done
      [ -d "/proc/$pid" ] && kill -9 "$pid" 2>/dev/null || true
      echo "stopped $(basename "$f" .pid) (pid $pid)"
    fi
    rm -f "$f"
  done
}

status() {
  local f rc=0
  [ -f "$DIR/master-url" ] && echo "master: $(cat "$DIR/master-url")"
  for f in "$DIR"/master.pid "$DIR"/worker-*.pid; do
    [ -f "$f" ] || { echo "not running (no pids under $DIR)"; return 1; }
    if alive "$f"; then echo "$(basename "$f" .pid): running (pid $(cat "$f"))"; else echo "$(basename "$f" .pid): dead"; rc=1; fi
  done
  return $rc
}

start() {
  [ -x "$PY" ] || die "no Python at $PY: run ./setup.sh or set CRAWLPLAN_CLUSTER_PYTHON"
  if [ -f "$DIR/master.pid" ] && alive "$DIR/master.pid"; then die "already running under $DIR (stop it first)"; fi
  SPARK_HOME=$("$PY" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')
  SITE=$("$PY" -c 'import os, pyspark; print(os.path.dirname(os.path.dirname(pyspark.__file__)))')
  BASE=$("$PY" -c 'import sys; print(getattr(sys, "_base_executable", sys.executable))')
  NODE_PY=${CRAWLPLAN_CLUSTER_NODE_PYTHON:-$BASE}
  mkdir -p "$DIR/logs"
  DIR=$(cd "$DIR" && pwd)
  # The executors' Python: a venv that sees $PY's site-packages as a plain path entry, so its .pth
  # files (the editable crawlplan install among them) are not run and `import crawlplan` fails
  # unless the job ships the package.
  if [ ! -x "$DIR/executor-env/bin/python" ]; then
    "$BASE" -m venv --without-pip "$DIR/executor-env"
  fi
  echo "$SITE" >"$(echo "$DIR"/executor-env/lib/python3*/site-packages)/crawlplan-deps.pth"
  cat >"$DIR/executor-python" <<EOF
#!/bin/sh
# Python of the executors of the cluster under $DIR: crawlplan's dependencies, not crawlplan.
# PYTHONPATH entries that hold a crawlplan source folder are dropped (the zip from --py-files stays).
keep=""
IFS=:
for p in \${PYTHONPATH:-}; do
  [ -f "\$p/crawlplan/__init__.py" ] || keep="\${keep:+\$keep:}\$p"
done
unset IFS
PYTHONPATH="\$keep" exec "$DIR/executor-env/bin/python" "\$@"
EOF
  chmod +x "$DIR/executor-python"
  cat >"$DIR/spark-daemons.conf" <<EOF
spark.master.rest.enabled false
spark.worker.cleanup.enabled false
spark.ui.reverseProxy false
EOF
  rm -f "$DIR/master-url"
  daemon master org.apache.spark.deploy.master.Master --host 127.0.0.1 --port 0 --webui-port 0
  line=$(wait_for "$DIR/logs/master.log" "Starting Spark master at spark://") || { stop; exit 1; }
  URL=$(echo "$line" | grep -oE "spark://[0-9.]+:[0-9]+")
  for i in $(seq 1 "$WORKERS"); do
    mkdir -p "$DIR/work-$i"
    daemon "worker-$i" org.apache.spark.deploy.worker.Worker --host 127.0.0.1 --port 0 --webui-port 0 \
      --cores "$CORES" --memory "$MEMORY" --work-dir "$DIR/work-$i" "$URL"
  done
  for i in $(seq 1 "$WORKERS"); do
    wait_for "$DIR/logs/worker-$i.log" "Successfully registered with master" >/dev/null || { stop; exit 1; }
  done
  echo "$URL" >"$DIR/master-url"
  # ops settings for `crawlplan submit|airflow --conf` (merge them into your run's conf file)
  cat >"$DIR/submit.yaml" <<EOF
ops:
  master: "$URL"
  deploy_mode: "client"        # standalone runs Python applications in client mode only
  executor_memory: "$MEMORY"
  executor_cores: $CORES
  driver_memory: "1g"
  spark_conf:
    spark.driver.host: "127.0.0.1"
    spark.driver.bindAddress: "127.0.0.1"
    spark.ui.enabled: "false"
    # C1 only: each node is a short application whose driver and executor JVMs start cold on the
    # shared cores; C2's compiling never pays back there (per node about half the wall: docs/cluster.md)
    spark.driver.extraJavaOptions: "-XX:TieredStopAtLevel=1"
    spark.executor.extraJavaOptions: "-XX:TieredStopAtLevel=1"
    spark.pyspark.python: "$DIR/executor-python"
    spark.pyspark.driver.python: "$PY"   # client mode: the driver is this machine's Python
EOF
  echo "master: $URL ($WORKERS workers x $CORES core, $MEMORY; logs and work folders under $DIR)"
  echo "submit settings: $DIR/submit.yaml"
}

case "$CMD" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) die "usage: $0 start|stop|status [DIR]" ;;
esac
