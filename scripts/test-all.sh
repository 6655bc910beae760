#!/usr/bin/env bash
# The one test command (README and .ci/run): installs, starts PostgreSQL 15, runs the checks and every
# test suite, and ends with one line "N passed, N failed" counted from vitest's JSON report.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" = 0 ]; then
  need_apt=()
  [ -x /usr/lib/postgresql/15/bin/postgres ] || need_apt+=(postgresql-15)
  if [ ${#need_apt[@]} -gt 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
  fi
fi

if [ -x /usr/lib/postgresql/15/bin/postgres ] && [ "$(id -u)" = 0 ]; then
  pg_ctlcluster 15 main start 2>/dev/null || true
  for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
  su postgres -c "psql -q -v ON_ERROR_STOP=1" <<'SQL'
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'agent_computer') THEN
    CREATE ROLE agent_computer LOGIN PASSWORD 'agent_computer' CREATEDB;
  END IF;
END $$;
SQL
  su postgres -c "psql -q -tAc \"SELECT 1 FROM pg_database WHERE datname = 'agent_computer_test'\"" | grep -q 1 ||
    su postgres -c "createdb -O agent_computer agent_computer_test"
  export AGENT_COMPUTER_TEST_PG_URL="${AGENT_COMPUTER_TEST_PG_URL:-postgres://agent_computer:agent_computer@127.0.0.1:5432/agent_computer_test}"
fi

npm ci --no-audit --no-fund --loglevel=error
node_modules/.bin/bun --version >/dev/null || { echo "bun did not install: node_modules/.bin/bun --version failed" >&2; exit 1; }
npm run --silent check

mkdir -p test-artifacts
set +e
node_modules/.bin/bun --bun vitest run --reporter=default --reporter=json --outputFile.json=test-artifacts/vitest.json
status=$?
set -e
node -e '
const r = require("./test-artifacts/vitest.json");
const skipped = r.numPendingTests + r.numTodoTests;
console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed` + (skipped ? `, ${skipped} skipped` : ""));
' || echo "0 passed, 1 failed"
exit $status
