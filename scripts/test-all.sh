#!/usr/bin/env bash
# The one test command (README and .ci/run): installs, starts PostgreSQL 15, runs the checks and every
# test suite, and ends with one line "N passed, N failed" counted from vitest's JSON report.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" = 0 ]; then
  need_apt=()
  [ -x /usr/lib/postgresql/15/bin/postgres ] || need_apt+=(postgresql-15)
  [ -x /usr/bin/chromium ] || need_apt+=(chromium)
  command -v jq >/dev/null || need_apt+=(jq)
  [ -x /usr/bin/bwrap ] || need_apt+=(bubblewrap)
  # The multi-host suite (test/multihost/) makes its hosts with `ip netns` and veth links.
  command -v ip >/dev/null || need_apt+=(iproute2)
  # test/e2e/pg-pgbouncer.test.ts starts its own PgBouncer in transaction pooling mode.
  [ -x /usr/sbin/pgbouncer ] || need_apt+=(pgbouncer)
  if [ ${#need_apt[@]} -gt 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
  fi
fi

if [ -x /usr/lib/postgresql/15/bin/postgres ] && [ "$(id -u)" = 0 ]; then
  pg_ctlcluster 15 main start 2>/dev/null || true
  for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
  # The concurrency suites start dozens of CLI processes at once, each with its own connection.
  if [ "$(su postgres -c "psql -tAc 'SHOW max_connections'")" -lt 400 ]; then
    su postgres -c "psql -q -c 'ALTER SYSTEM SET max_connections = 400'"
    pg_ctlcluster 15 main restart
    for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
  fi
  su postgres -c "psql -q -v ON_ERROR_STOP=1" <<'SQL'
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'agent_computer') THEN
    CREATE ROLE agent_computer LOGIN PASSWORD 'agent_computer' CREATEDB;
  END IF;
END $$;
-- Each suite drops its own database WITH (FORCE); an autovacuum worker busy in it can only be ended with this.
GRANT pg_signal_backend TO agent_computer;
SQL
  su postgres -c "psql -q -tAc \"SELECT 1 FROM pg_database WHERE datname = 'agent_computer_test'\"" | grep -q 1 ||
    su postgres -c "createdb -O agent_computer agent_computer_test"
  export AGENT_COMPUTER_TEST_PG_URL="${AGENT_COMPUTER_TEST_PG_URL:-postgres://agent_computer:agent_computer@127.0.0.1:5432/agent_computer_test}"
fi

# npm ci also builds the compiled executable (the package's prepare step), so no separate build follows.
npm ci --no-audit --no-fund --loglevel=error
node_modules/.bin/bun --version >/dev/null || { echo "bun did not install: node_modules/.bin/bun --version failed" >&2; exit 1; }
[ -x dist/agent-computer ] || { echo "npm ci built no dist/agent-computer (its prepare step did not run)" >&2; exit 1; }
npm run --silent check

# The whole suite runs against the compiled form (what `npm ci` builds for users); the black-box
# suite runs a second time against the TypeScript source form. One variable switches the form.
mkdir -p test-artifacts
status=0
AGENT_COMPUTER_TEST_FORM=compiled node_modules/.bin/bun --bun vitest run \
  --reporter=default --reporter=json --outputFile.json=test-artifacts/vitest-compiled.json || status=1
# Left out of the second pass, each because the form changes nothing it checks: packaging installs the packed tarball;
# help-examples runs every help example, and static-help proves the compiled help equals the source form's; the
# real Claude Code and Codex clients only call the hooks, whose binaries and logic the other suites cover in both forms;
# herdr-verify spends its time in bwrap sandboxes, whose argv is the same in either form; herdr-takeover and
# herdr-cleanup check lease rules whose code is the same in both forms, and herdr-controller and herdr-lifecycle
# already run herdr-lease-cli in both; outbound-webhooks drives the worker's HTTP sender, the same code in both forms,
# for about 10 s; pg-pgbouncer checks the store's connection settings, which both forms share, through a pooler.
# test/multihost/ (three network-namespace hosts on one PostgreSQL) is outside test/e2e, so it runs in the first pass
# only: the form changes nothing it checks that the e2e suites do not check in both forms.
AGENT_COMPUTER_TEST_FORM=source node_modules/.bin/bun --bun vitest run test/e2e --exclude test/e2e/packaging.test.ts \
  --exclude test/e2e/help-examples.test.ts --exclude test/e2e/session-hook-claude-code.test.ts \
  --exclude test/e2e/mail-hooks-claude-code.test.ts --exclude test/e2e/mail-hooks-codex.test.ts \
  --exclude test/e2e/skills-listing-claude-code.test.ts --exclude test/e2e/herdr-verify.test.ts \
  --exclude test/e2e/herdr-takeover.test.ts --exclude test/e2e/herdr-cleanup.test.ts \
  --exclude test/e2e/outbound-webhooks.test.ts --exclude test/e2e/pg-pgbouncer.test.ts \
  --reporter=default --reporter=json --outputFile.json=test-artifacts/vitest-source.json || status=1
node -e '
let passed = 0, failed = 0, skipped = 0;
for (const file of ["compiled", "source"]) {
  try {
    const r = require(`./test-artifacts/vitest-${file}.json`);
    passed += r.numPassedTests; failed += r.numFailedTests; skipped += r.numPendingTests + r.numTodoTests;
  } catch { failed += 1; }
}
console.log(`${passed} passed, ${failed} failed` + (skipped ? `, ${skipped} skipped` : ""));
'
exit $status
