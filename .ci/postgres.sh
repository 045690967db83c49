# Sourced by .ci/run (and usable by hand: `source .ci/postgres.sh &&
# tact_pg_start`): a throwaway PostgreSQL server for the store's tests.
# Installs the system's `postgresql` package when no server binaries are
# found, runs initdb under a temporary directory (as the `postgres` user
# when run as root: the server refuses to run as root), listens on
# 127.0.0.1 on a free port and a Unix socket in that directory, creates
# the role `tact` (password auth, CREATEROLE for the read-only-role test)
# and the database `tact`, and exports
#   TACT_TEST_PG_URL   postgresql://tact:...@127.0.0.1:PORT/tact
#   TACT_TEST_PG_DATA  the data directory (for pg_ctl in the fault test)
#   TACT_TEST_PG_BIN   the server's bin directory
#   TACT_TEST_PG_CA    the CA of the server's TLS certificate (when openssl
#                      is installed: the server then offers TLS)
# tact_pg_stop stops it and removes the directory (set as an EXIT trap by
# tact_pg_start).

tact_pg_bin() {
  local d
  d=$( (ls -d /usr/lib/postgresql/*/bin 2>/dev/null || true) | sort -V | tail -n 1)
  if [ -z "$d" ] && command -v pg_ctl >/dev/null 2>&1; then
    d=$(dirname "$(command -v pg_ctl)")
  fi
  echo "$d"
}

# Runs a server command as the `postgres` user when we are root.
tact_pg_as() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

tact_pg_start() {
  local bin dir port pw i
  bin=$(tact_pg_bin)
  if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
    if [ "$(id -u)" != 0 ]; then
      echo "PostgreSQL is not installed and we are not root: cannot install it" >&2
      return 1
    fi
    echo "== installing PostgreSQL (apt-get install postgresql)"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
    bin=$(tact_pg_bin)
  fi
  dir=$(mktemp -d "${TMPDIR:-/tmp}/tact-pg.XXXXXX")
  chmod 755 "$dir"
  if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; fi
  pw="tact-ci-$RANDOM$RANDOM"
  tact_pg_as "$bin/initdb" -D "$dir/data" -U postgres -E UTF8 --locale=C.UTF-8 \
    --auth-local=trust --auth-host=scram-sha-256 >"$dir/initdb.log" 2>&1 || {
    cat "$dir/initdb.log" >&2
    return 1
  }
  # TLS, when openssl is there: a CA and a server certificate for
  # `localhost` (the sslmode tests read TACT_TEST_PG_CA).
  if command -v openssl >/dev/null 2>&1; then
    openssl req -x509 -newkey rsa:2048 -nodes -keyout "$dir/ca.key" -out "$dir/ca.crt" \
      -days 2 -subj "/CN=tact CI CA" >/dev/null 2>&1 &&
      openssl req -newkey rsa:2048 -nodes -keyout "$dir/data/server.key" \
        -out "$dir/server.csr" -subj "/CN=localhost" >/dev/null 2>&1 &&
      printf "subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\n" >"$dir/ext.cnf" &&
      openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.crt" -CAkey "$dir/ca.key" \
        -CAcreateserial -out "$dir/data/server.crt" -days 2 -extfile "$dir/ext.cnf" >/dev/null 2>&1 &&
      chmod 600 "$dir/data/server.key" &&
      { [ "$(id -u)" != 0 ] || chown postgres "$dir/data/server.key" "$dir/data/server.crt"; } &&
      echo "ssl = on" >>"$dir/data/postgresql.conf" &&
      export TACT_TEST_PG_CA="$dir/ca.crt"
  fi
  # The settings live in the data directory (a restart keeps them).
  echo "include 'tact.conf'" >>"$dir/data/postgresql.conf"
  # A free port: try a few random ones.
  for i in 1 2 3 4 5 6 7 8; do
    port=$((20000 + RANDOM % 30000))
    printf "listen_addresses = '127.0.0.1'\nport = %s\nunix_socket_directories = '%s'\nmax_connections = 200\n" \
      "$port" "$dir" >"$dir/data/tact.conf"
    if tact_pg_as "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
      start >/dev/null 2>&1; then
      break
    fi
    port=""
  done
  if [ -z "$port" ]; then
    echo "PostgreSQL did not start:" >&2
    cat "$dir/server.log" >&2
    return 1
  fi
  tact_pg_as "$bin/psql" -h "$dir" -p "$port" -U postgres -v ON_ERROR_STOP=1 -q -c \
    "CREATE ROLE tact LOGIN CREATEROLE PASSWORD '$pw'" -c "CREATE DATABASE tact OWNER tact" >/dev/null
  export TACT_TEST_PG_URL="postgresql://tact:$pw@127.0.0.1:$port/tact"
  export TACT_TEST_PG_DATA="$dir/data"
  export TACT_TEST_PG_BIN="$bin"
  TACT_PG_DIR="$dir"
  trap tact_pg_stop EXIT
  echo "== PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port (data in $dir)"
}

tact_pg_stop() {
  if [ -n "${TACT_PG_DIR:-}" ] && [ -d "$TACT_PG_DIR/data" ]; then
    tact_pg_as "$TACT_TEST_PG_BIN/pg_ctl" -D "$TACT_PG_DIR/data" -m fast -w stop >/dev/null 2>&1 || true
    rm -rf "$TACT_PG_DIR"
  fi
}
