#!/usr/bin/env bash
# Checks the compiled runtime as an operator runs it: `npm run build`; `npm start` on a fresh
# embedded folder (healthy, docs page and demo credentials printed, an admin command served by
# the running service, graceful exit 0 on SIGTERM sent to npm); then a production install
# (`npm ci --omit=dev` in a copy holding only package*.json, dist/ and the start script) that
# starts, serves /healthz and /docs, and stops on SIGINT. Exits non-zero on the first failure.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work=$(mktemp -d)
pid=""
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "runtime check FAILED: $*"; [ -f "$work/out" ] && sed 's/^/  | /' "$work/out" | head -40; exit 1; }

# Starts `$@` in the background (its own process group), waits for "Listening on <url>".
start() {
  : > "$work/out"
  setsid "$@" > "$work/out" 2>&1 &
  pid=$!
  for _ in $(seq 1 360); do
    url=$(sed -nE 's#^Listening on (http://[^ ]+).*#\1#p' "$work/out" | head -n1)
    [ -n "$url" ] && return 0
    kill -0 "$pid" 2>/dev/null || fail "$* exited before listening"
    sleep 0.5
  done
  fail "$* did not listen within 180 s"
}
# Sends a signal to the started process and expects it (and what it ran) to exit 0.
stop() {
  kill "-$1" "$pid"
  local code=0
  wait "$pid" || code=$?
  [ "$code" -eq 0 ] || fail "exit code $code after SIG$1"
  grep -q '"msg":"stopped"' "$work/out" || fail "no graceful stop logged after SIG$1"
  curl -s -o /dev/null --max-time 2 "$url/healthz" && fail "still answering after SIG$1"
  pid=""
}
status() { curl -s -o /dev/null -w '%{http_code}' --max-time 10 "$1"; }

echo "== build"
npm run --silent build || fail "npm run build"
[ -f dist/bootstrap/main.js ] && [ -f dist/bootstrap/admin.js ] || fail "dist/bootstrap/{main,admin}.js missing"

echo "== npm start (compiled, embedded)"
start env -u DATABASE_URL PORT=0 PGLITE_DIR="$work/data" LOG_LEVEL=info npm start
[ "$(status "$url/healthz")" = 200 ] || fail "/healthz"
[ "$(status "$url/docs")" = 200 ] || fail "/docs"
grep -q "API reference: $url/docs" "$work/out" || fail "docs URL not printed"
grep -q 'booking API key (X-API-KEY):  pbk_' "$work/out" || fail "demo credentials not printed"
seeded=$(env -u DATABASE_URL PGLITE_DIR="$work/data" npm run --silent admin -- demo seed --json) || fail "admin command while the service runs"
echo "$seeded" | grep -q '"issued":false' || fail "demo seed changed the existing demo: $seeded"
stop TERM
echo "   healthy, docs and credentials printed, admin served, SIGTERM to npm: graceful exit 0"

echo "== production install (npm ci --omit=dev)"
mkdir -p "$work/prod/scripts"
cp package.json package-lock.json "$work/prod/"
cp -r dist "$work/prod/dist"
cp scripts/build-if-stale.mjs "$work/prod/scripts/"
(cd "$work/prod" && npm ci --omit=dev --no-audit --no-fund --loglevel=error) || fail "npm ci --omit=dev"
[ -e "$work/prod/node_modules/tsx" ] && fail "tsx installed in production"
[ -e "$work/prod/node_modules/typescript" ] && fail "typescript installed in production"
cd "$work/prod"
start env -u DATABASE_URL PORT=0 PGLITE_DIR="$work/prod/data" LOG_LEVEL=info npm start
[ "$(status "$url/healthz")" = 200 ] || fail "/healthz (production install)"
[ "$(status "$url/docs")" = 200 ] || fail "/docs (production install)"
stop INT
cd "$root"
echo "   production install starts, serves and stops on SIGINT"
echo "runtime check passed"
