#!/usr/bin/env bash
# Run by `npm test` before vitest: makes sure the services the suites need beyond `npm ci` are
# there, installing what is missing and saying what and why.
#   - pgvector in the PostgreSQL server of ARBOR_TEST_PG_URL (the recall suite's pgvector runner)
#   - Chromium at /usr/bin/chromium (the studio's browser tests)
# A quick no-op when both are present. A service that stays missing is a warning on a laptop (the
# suites that need it skip with a reason) and, under CI=true, a failure here, before any test runs.
set -uo pipefail
cd "$(dirname "$0")/.."

CHROMIUM=/usr/bin/chromium
PG_URL="${ARBOR_TEST_PG_URL:-}"
missing=()
present=()

say() { echo "[test services] $*" >&2; }

# Runs apt-get as root (directly, or through passwordless sudo); its output goes to a log that is
# shown only when it fails.
run_apt_get() {
  local log status
  log=$(mktemp)
  if [ "$(id -u)" = 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get "$@" >"$log" 2>&1
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    sudo -n env DEBIAN_FRONTEND=noninteractive apt-get "$@" >"$log" 2>&1
  else
    echo "not root, and no passwordless sudo" >"$log"
    false
  fi
  status=$?
  [ $status -ne 0 ] && sed 's/^/    /' "$log" >&2
  rm -f "$log"
  return $status
}
can_apt() {
  command -v apt-get >/dev/null &&
    { [ "$(id -u)" = 0 ] || { command -v sudo >/dev/null && sudo -n true 2>/dev/null; }; }
}
# A fresh image has no package lists: fetch them once, before the first install.
apt_updated=false
apt_update() {
  $apt_updated && return 0
  say "apt-get update (package lists, for the installs below)"
  run_apt_get update -qq && apt_updated=true
}

# One SQL value from the test server, through the pg driver npm ci installed (no psql needed).
pg_value() {
  node -e '
    const { Client } = require("pg");
    const client = new Client({ connectionString: process.argv[1], connectionTimeoutMillis: 5000 });
    client.connect()
      .then(() => client.query(process.argv[2]))
      .then((result) => { const row = result.rows[0]; console.log(row ? String(Object.values(row)[0]) : ""); })
      .catch((error) => { console.error(error.message || error.code); process.exitCode = 1; })
      .finally(() => client.end().catch(() => {}));
  ' "$PG_URL" "$1"
}
vector_available() {
  [ -n "$(pg_value "SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")" ]
}

# Installs pgvector for PostgreSQL $1 into this machine's /usr/lib/postgresql/$1: Debian's
# postgresql-$1-pgvector when the release has it (bookworm does not), otherwise built from
# Debian's source package (trixie's) against the server's headers.
install_pgvector() {
  local version=$1 source_list=/etc/apt/sources.list.d/arbor-pgvector-src.list folder archive
  say "installing pgvector for PostgreSQL $version: apt-get install postgresql-$version-pgvector"
  apt_update || return 1
  run_apt_get install -y -qq "postgresql-$version-pgvector" && return 0
  say "no postgresql-$version-pgvector package here; building pgvector from Debian's source package (trixie's) with postgresql-server-dev-$version, gcc and make"
  archive=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 'Identifier: Packages' |
    awk -v release="$(. /etc/os-release && echo "$VERSION_CODENAME")" '$2 == release { print $1; exit }')
  [ -n "$archive" ] || { say "no Debian archive configured for apt"; return 1; }
  if [ ! -f "$source_list" ]; then
    echo "deb-src $archive trixie main" | { if [ "$(id -u)" = 0 ]; then cat >"$source_list"; else sudo -n tee "$source_list" >/dev/null; fi; } || return 1
    apt_updated=false
  fi
  apt_update &&
    run_apt_get install -y -qq "postgresql-server-dev-$version" dpkg-dev gcc make || return 1
  folder=$(mktemp -d)
  (cd "$folder" && apt-get source -qq pgvector >/dev/null 2>&1) || {
    say "apt-get source pgvector failed"
    rm -rf "$folder"
    return 1
  }
  # OPTFLAGS= : no -march=native, so the library runs on any CPU of this architecture.
  local build=(make -s -C "$(echo "$folder"/pgvector-*/)" OPTFLAGS= PG_CONFIG="/usr/lib/postgresql/$version/bin/pg_config")
  local status=0
  if ! "${build[@]}" >"$folder/build.log" 2>&1; then
    tail -20 "$folder/build.log" >&2
    status=1
  elif [ "$(id -u)" = 0 ]; then
    "${build[@]}" install >/dev/null || status=1
  else
    sudo -n "${build[@]}" install >/dev/null || status=1
  fi
  rm -rf "$folder"
  return $status
}

# --- pgvector ---
if [ -z "$PG_URL" ]; then
  say "ARBOR_TEST_PG_URL is not set: no PostgreSQL to check for pgvector (the PostgreSQL suites skip, or fail under CI=true)"
elif ! version_num=$(pg_value "SHOW server_version_num" 2>/dev/null) || [ -z "$version_num" ]; then
  say "PostgreSQL at ARBOR_TEST_PG_URL does not answer: pgvector not checked (the PostgreSQL suites report it)"
elif vector_available; then
  present+=("pgvector")
else
  version=$((version_num / 10000))
  host=$(node -e 'try { console.log(new URL(process.argv[1]).hostname) } catch { console.log("") }' "$PG_URL")
  say "pgvector is missing in PostgreSQL $version at ARBOR_TEST_PG_URL; the recall suite's pgvector runner needs it"
  if [[ "$host" != "localhost" && "$host" != "127.0.0.1" && "$host" != "::1" && "$host" != "[::1]" && -n "$host" ]]; then
    say "the server runs on $host, not this machine: install pgvector there (https://github.com/pgvector/pgvector)"
    missing+=("pgvector (server on $host)")
  elif [ ! -d "/usr/lib/postgresql/$version" ]; then
    say "this machine has no /usr/lib/postgresql/$version: the server on $host is not this machine's PostgreSQL (a container?); install pgvector where it runs"
    missing+=("pgvector (server not installed on this machine)")
  elif ! can_apt; then
    say "cannot install it: apt-get needs root or passwordless sudo (or: apt-get install postgresql-$version-pgvector)"
    missing+=("pgvector")
  elif ! install_pgvector "$version"; then
    say "installing pgvector failed"
    missing+=("pgvector")
  elif ! vector_available; then
    say "pgvector is installed in /usr/lib/postgresql/$version, but the server still does not offer it: is the server at $host another installation?"
    missing+=("pgvector")
  else
    say "pgvector installed: $(pg_value "SELECT default_version FROM pg_available_extensions WHERE name = 'vector'")"
    present+=("pgvector")
  fi
fi

# --- Chromium ---
if [ -x "$CHROMIUM" ]; then
  present+=("Chromium")
else
  say "Chromium is missing at $CHROMIUM; the studio's browser tests need it: apt-get install chromium"
  if ! can_apt; then
    say "cannot install it: apt-get needs root or passwordless sudo"
    missing+=("Chromium")
  elif apt_update && run_apt_get install -y -qq chromium && [ -x "$CHROMIUM" ]; then
    say "Chromium installed: $("$CHROMIUM" --version 2>/dev/null || echo "$CHROMIUM")"
    present+=("Chromium")
  else
    say "installing Chromium failed"
    missing+=("Chromium")
  fi
fi

[ ${#present[@]} -gt 0 ] && say "present: ${present[*]}"
if [ ${#missing[@]} -gt 0 ]; then
  if [ "${CI:-}" = "true" ]; then
    say "FAILED under CI=true: missing ${missing[*]}; the tests that need it would fail, so none run"
    exit 1
  fi
  say "missing ${missing[*]}: the tests that need it skip with a reason (CI=true fails instead)"
fi
exit 0
