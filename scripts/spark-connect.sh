#!/usr/bin/env bash
# A Spark Connect server on this machine, for tests and for trying `--remote` runs by hand:
# a local[N] Spark application serving Spark Connect's gRPC protocol on 127.0.0.1 (an ephemeral
# port unless CRAWLPLAN_CONNECT_PORT is set), whose Python workers have crawlplan's dependencies
# but cannot import crawlplan itself: the client ships the package (spark.addArtifacts), as it
# must to a Databricks serverless or shared cluster.
#
#   scripts/spark-connect.sh start [DIR]    start it; prints the sc:// URL (also in DIR/remote-url)
#   scripts/spark-connect.sh status [DIR]   the URL and whether the server process is alive
#   scripts/spark-connect.sh stop [DIR]     stop exactly the process it started (by its pid)
#
# DIR (default: $CRAWLPLAN_CONNECT_DIR or .connect/ in the checkout) holds the pid, the log, the
# workers' Python (worker-python) and remote-url. Settings (environment): CRAWLPLAN_CONNECT_MASTER
# (local[2]), CRAWLPLAN_CONNECT_MEMORY (the server's heap, 2g), CRAWLPLAN_CONNECT_PORT (0: any
# free port), CRAWLPLAN_CONNECT_PYTHON (the Python whose packages the workers get; default
# .venv/bin/python), CRAWLPLAN_CONNECT_TIMEOUT (180 s).
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
CMD=${1:-}
DIR=${2:-${CRAWLPLAN_CONNECT_DIR:-$REPO/.connect}}
MASTER=${CRAWLPLAN_CONNECT_MASTER:-local[2]}
MEMORY=${CRAWLPLAN_CONNECT_MEMORY:-2g}
PORT=${CRAWLPLAN_CONNECT_PORT:-0}
PY=${CRAWLPLAN_CONNECT_PYTHON:-$REPO/.venv/bin/python}
TIMEOUT=${CRAWLPLAN_CONNECT_TIMEOUT:-180}

die() { echo "spark-connect: $*" >&2; exit 1; }

alive() {  # 0 when the pid in DIR/server.pid still runs and is our Connect server
  local pid
  [ -f "$DIR/server.pid" ] || return 1
  pid=$(cat "$DIR/server.pid")
  [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q "SparkConnectServer"
}

free_port() {
  "$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

stop() {
  local pid n
  if alive; then
    pid=$(cat "$DIR/server.pid"); kill "$pid" 2>/dev/null || true
    for n in $(seq 1 60); do [ -d "/proc/$pid" ] || break; sleep 0.25; done
    [ -d "/proc/$pid" ] && kill -9 "$pid" 2>/dev/null || true
    echo "stopped the Connect server (pid $pid)"
  fi
  rm -f "$DIR/server.pid" "$DIR/remote-url"
}

status() {
  [ -f "$DIR/remote-url" ] && echo "remote: $(cat "$DIR/remote-url")"
  if alive; then echo "server: running (pid $(cat "$DIR/server.pid"))"; else echo "server: not running (no live pid under $DIR)"; return 1; fi
}

start() {
  [ -x "$PY" ] || die "no Python at $PY: run ./setup.sh or set CRAWLPLAN_CONNECT_PYTHON"
  if alive; then die "already running under $DIR (stop it first)"; fi
  SPARK_HOME=$("$PY" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')
  SITE=$("$PY" -c 'import os, pyspark; print(os.path.dirname(os.path.dirname(pyspark.__file__)))')
  BASE=$("$PY" -c 'import sys; print(getattr(sys, "_base_executable", sys.executable))')
  JAR=$(ls "$SPARK_HOME"/jars/spark-connect_*.jar 2>/dev/null | head -1)
  [ -n "$JAR" ] || die "no spark-connect jar under $SPARK_HOME/jars (pyspark >= 4 ships it)"
  mkdir -p "$DIR/logs"
  DIR=$(cd "$DIR" && pwd)
  # The workers' Python: a venv that sees $PY's site-packages as a plain path entry, so its .pth
  # files (the editable crawlplan install among them) are not run and `import crawlplan` fails
  # unless the client ships the package.
  if [ ! -x "$DIR/worker-env/bin/python" ]; then
    "$BASE" -m venv --without-pip "$DIR/worker-env"
  fi
  echo "$SITE" >"$(echo "$DIR"/worker-env/lib/python3*/site-packages)/crawlplan-deps.pth"
  cat >"$DIR/worker-python" <<EOF
#!/bin/sh
# Python of the workers of the Connect server under $DIR: crawlplan's dependencies, not crawlplan.
keep=""
IFS=:
for p in \${PYTHONPATH:-}; do
  [ -f "\$p/crawlplan/__init__.py" ] || keep="\${keep:+\$keep:}\$p"
done
unset IFS
PYTHONPATH="\$keep" exec "$DIR/worker-env/bin/python" "\$@"
EOF
  chmod +x "$DIR/worker-python"
  [ "$PORT" = 0 ] && PORT=$(free_port)
  rm -f "$DIR/remote-url"
  cd "$DIR"
  env -u PYTHONPATH -u PYSPARK_DRIVER_PYTHON -u SPARK_CONF_DIR -u SPARK_REMOTE \
    SPARK_HOME="$SPARK_HOME" SPARK_LOCAL_IP=127.0.0.1 SPARK_LOCAL_HOSTNAME=127.0.0.1 \
    PYSPARK_PYTHON="$DIR/worker-python" \
    setsid "$SPARK_HOME/bin/spark-submit" --class org.apache.spark.sql.connect.service.SparkConnectServer \
      --name "crawlplan Spark Connect (test server)" --master "$MASTER" --driver-memory "$MEMORY" \
      --conf spark.connect.grpc.binding.address=127.0.0.1 --conf spark.connect.grpc.binding.port="$PORT" \
      --conf spark.driver.host=127.0.0.1 --conf spark.driver.bindAddress=127.0.0.1 \
      --conf spark.ui.enabled=false --conf spark.sql.session.timeZone=UTC \
      --conf spark.pyspark.python="$DIR/worker-python" \
      --conf "spark.driver.extraJavaOptions=-Dlog4j2.configurationFile=file:$REPO/conf/log4j2.properties" \
      "$JAR" >"$DIR/logs/server.log" 2>&1 </dev/null &
  echo $! >"$DIR/server.pid"
  cd "$REPO"
  local waited=0
  until "$PY" -c "import socket,sys; s=socket.socket(); s.settimeout(0.5); sys.exit(s.connect_ex(('127.0.0.1', $PORT)))" 2>/dev/null; do
    alive || { echo "spark-connect: the server exited; the tail of its log:" >&2; tail -20 "$DIR/logs/server.log" >&2; stop; exit 1; }
    waited=$((waited + 1)); [ "$waited" -lt "$((TIMEOUT * 2))" ] || { echo "spark-connect: no server on port $PORT after ${TIMEOUT}s" >&2; tail -20 "$DIR/logs/server.log" >&2; stop; exit 1; }
    sleep 0.5
  done
  echo "sc://127.0.0.1:$PORT" >"$DIR/remote-url"
  echo "remote: sc://127.0.0.1:$PORT (master $MASTER; log $DIR/logs/server.log)"
  echo "use: SPARK_REMOTE=sc://127.0.0.1:$PORT crawlplan run   (or crawlplan run --remote sc://127.0.0.1:$PORT)"
}

case "$CMD" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) die "usage: $0 start|stop|status [DIR]" ;;
esac
