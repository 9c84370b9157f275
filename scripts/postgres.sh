#!/usr/bin/env bash
# A throw-away PostgreSQL cluster for tests: `start` prints `export STEWARD_TEST_DATABASE_URL=…`,
# `stop` shuts it down and removes it. PostgreSQL refuses to run as root, so the server runs as the
# `postgres` user (Debian's package creates it); the data and socket directories live in a
# temporary folder that user owns. Usage:
#   eval "$(scripts/postgres.sh start)"   # a developer or CI
#   scripts/postgres.sh stop
set -euo pipefail

root="${STEWARD_PG_ROOT:-${TMPDIR:-/tmp}/steward-pg}"
port="${STEWARD_PG_PORT:-54329}"
bindir=""
for candidate in /usr/lib/postgresql/*/bin; do
  if [ -x "$candidate/pg_ctl" ]; then bindir="$candidate"; fi
done
if [ -z "$bindir" ]; then
  echo "scripts/postgres.sh: no PostgreSQL server found; install Debian's postgresql package" >&2
  exit 2
fi

as_postgres() {
  if [ "$(id -u)" = "0" ]; then
    su postgres -s /bin/sh -c "$*"
  else
    sh -c "$*"
  fi
}

case "${1:-}" in
  start)
    if [ -f "$root/data/postmaster.pid" ] && as_postgres "'$bindir/pg_ctl' -D '$root/data' status" > /dev/null 2>&1; then
      echo "export STEWARD_TEST_DATABASE_URL=postgres://postgres@127.0.0.1:$port/postgres"
      exit 0
    fi
    rm -rf "$root"
    mkdir -p "$root/data" "$root/socket"
    if [ "$(id -u)" = "0" ]; then chown -R postgres "$root"; fi
    as_postgres "'$bindir/initdb' -D '$root/data' -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8" > "$root/initdb.log" 2>&1 \
      || { cat "$root/initdb.log" >&2; exit 2; }
    as_postgres "'$bindir/pg_ctl' -D '$root/data' -l '$root/server.log' -w -t 60 \
      -o \"-c listen_addresses=127.0.0.1 -p $port -k '$root/socket' -c max_connections=200 -c fsync=off -c synchronous_commit=off\" start" > /dev/null \
      || { cat "$root/server.log" >&2; exit 2; }
    echo "export STEWARD_TEST_DATABASE_URL=postgres://postgres@127.0.0.1:$port/postgres"
    ;;
  stop)
    if [ -d "$root/data" ]; then
      as_postgres "'$bindir/pg_ctl' -D '$root/data' -m fast -w stop" > /dev/null 2>&1 || true
    fi
    rm -rf "$root"
    ;;
  *)
    echo "usage: scripts/postgres.sh start|stop" >&2
    exit 2
    ;;
esac
