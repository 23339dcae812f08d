#!/usr/bin/env bash
# Run by `npm test` before vitest: makes sure the services the suites need beyond `npm ci` are
# there, installing what is missing and saying what and why.
#   - pgvector in the PostgreSQL server of ARBOR_TEST_PG_URL (the recall suite's pgvector runner)
#   - Chromium at /usr/bin/chromium (the studio's browser tests)
# A quick no-op when both are present. A service that stays missing is a warning on a laptop (the
# suites that need it skip with a reason) and, under CI=true, a failure here, before any test runs.
# Every change it makes to the machine is said when it is made and listed again at the end
# ("changed this machine: ..."), with how to undo it. The one temporary change, an apt source
# for Debian's pgvector source package, is removed again before the script ends.
set -uo pipefail
cd "$(dirname "$0")/.."

CHROMIUM=/usr/bin/chromium
APT_SOURCE=/etc/apt/sources.list.d/arbor-pgvector-src.list
PG_URL="${ARBOR_TEST_PG_URL:-}"
missing=()
present=()
changes=()

say() { echo "[test services] $*" >&2; }
# Records a change to this machine, to list at the end.
changed() { changes+=("$*"); }

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
apt_refreshed=false
apt_update() {
  $apt_updated && return 0
  say "apt-get update (package lists, for the installs below)"
  run_apt_get update -qq && apt_updated=true && apt_refreshed=true
}
# Writes (content $2) or deletes (no $2) a root-owned file $1, directly or through sudo.
root_file() {
  if [ $# -eq 1 ]; then
    if [ "$(id -u)" = 0 ]; then rm -f "$1"; else sudo -n rm -f "$1"; fi
  elif [ "$(id -u)" = 0 ]; then
    echo "$2" >"$1"
  else
    echo "$2" | sudo -n tee "$1" >/dev/null
  fi
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
  local version=$1 source_list=$APT_SOURCE folder archive
  say "installing pgvector for PostgreSQL $version: apt-get install postgresql-$version-pgvector"
  apt_update || return 1
  if run_apt_get install -y -qq "postgresql-$version-pgvector"; then
    changed "installed the apt package postgresql-$version-pgvector (undo: apt-get remove postgresql-$version-pgvector)"
    return 0
  fi
  say "no postgresql-$version-pgvector package here; building pgvector from Debian's source package (trixie's) with postgresql-server-dev-$version, gcc and make"
  archive=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 'Identifier: Packages' |
    awk -v release="$(. /etc/os-release && echo "$VERSION_CODENAME")" '$2 == release { print $1; exit }')
  [ -n "$archive" ] || { say "no Debian archive configured for apt"; return 1; }
  run_apt_get install -y -qq "postgresql-server-dev-$version" dpkg-dev gcc make || return 1
  changed "installed the apt packages postgresql-server-dev-$version dpkg-dev gcc make, to build pgvector (undo: apt-get remove postgresql-server-dev-$version dpkg-dev; gcc and make may have been there before)"
  # Debian's source package is fetched through a temporary deb-src line, removed right after, so
  # no trixie source stays configured on this (older) release. The file name is this script's:
  # one already there was left by an earlier version, and goes the same way.
  say "adding the apt source $source_list (deb-src $archive trixie main), removed again after the download"
  root_file "$source_list" "deb-src $archive trixie main" || return 1
  apt_updated=false
  folder=$(mktemp -d)
  local fetched=true
  apt_update && (cd "$folder" && apt-get source -qq pgvector >/dev/null 2>&1) || fetched=false
  root_file "$source_list"
  say "removed the apt source $source_list again; apt-get update drops its package lists"
  apt_updated=false
  apt_update || say "apt-get update failed: the lists of $source_list stay until the next apt-get update"
  $fetched || {
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
  [ $status -eq 0 ] && changed "built pgvector from source and installed it into /usr/lib/postgresql/$version and /usr/share/postgresql/$version/extension (make install; undo: delete vector.so and vector*.sql / vector.control there)"
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
    changed "installed the apt package chromium (undo: apt-get remove chromium)"
    present+=("Chromium")
  else
    say "installing Chromium failed"
    missing+=("Chromium")
  fi
fi

# Versions of this script before it cleaned up after itself left their apt source behind.
if [ -f "$APT_SOURCE" ]; then
  say "note: $APT_SOURCE (a deb-src line for Debian trixie) was left by an earlier version of this script and is not needed: remove it with rm $APT_SOURCE, then apt-get update"
fi
[ ${#present[@]} -gt 0 ] && say "present: ${present[*]}"
if $apt_refreshed; then
  changed "refreshed apt's package lists (apt-get update)"
fi
for change in "${changes[@]}"; do say "changed this machine: $change"; done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "${CI:-}" = "true" ]; then
    say "FAILED under CI=true: missing ${missing[*]}; the tests that need it would fail, so none run"
    exit 1
  fi
  say "missing ${missing[*]}: the tests that need it skip with a reason (CI=true fails instead)"
fi
exit 0
