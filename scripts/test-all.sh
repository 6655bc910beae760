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
# The real Claude Code and Codex clients that four suites drive offline are no dependency of the project: their
# pinned versions install here from test-clients/package-lock.json (about 800 MB a user's `npm ci` never fetches).
npm ci --prefix test-clients --no-audit --no-fund --loglevel=error

# The whole suite runs against the compiled form (what `npm ci` builds for users); the black-box
# suite runs a second time against the TypeScript source form. One variable switches the form.
mkdir -p test-artifacts
status=0
AGENT_COMPUTER_TEST_FORM=compiled node_modules/.bin/bun --bun vitest run \
  --reporter=default --reporter=json --outputFile.json=test-artifacts/vitest-compiled.json || status=1
# The second pass runs the black-box suites again against the TypeScript source form (what the launchers run when
# dist/ is missing). Left out, each because the form changes nothing it checks (the same modules run; only how the
# binary is loaded differs), and together they would push CI past its 15 minutes:
# - packaging installs the packed tarball; help-examples runs every help example, and static-help proves the compiled
#   help equals the source form's; help.test.ts still starts every binary in both forms;
# - the real Claude Code and Codex clients only call the hooks, whose binaries the other suites cover in both forms;
# - herdr-verify spends its time in bwrap sandboxes; herdr-takeover, herdr-cleanup and herdr-handoff check lease and
#   receipt rules, while herdr-controller and herdr-lifecycle run herdr-lease-cli and herdr-agent-control in both;
# - outbound-webhooks drives the worker's HTTP sender, and wake-watcher the watcher's timing, while
#   automation-webhooks, worker-signals and herdr-wake-arming run the worker and agent-wake-cli in both forms;
# - pg-pgbouncer checks the store's connection settings through a pooler, the same code in both forms;
# - identity-force-race, concurrent-senders and identity-rate-limit race many processes on one store, and
#   identity-token-leak scans their output: what they prove is the store's transactions and the output writer;
# - console-browser drives Chromium through the console's pages; console-access signs in and serves them in both.
# test/multihost/ (three network-namespace hosts on one PostgreSQL) is outside test/e2e, so it runs in the first
# pass only.
source_pass_excludes=(packaging help-examples session-hook-claude-code mail-hooks-claude-code mail-hooks-codex
  skills-listing-claude-code herdr-verify herdr-takeover herdr-cleanup herdr-handoff outbound-webhooks wake-watcher
  pg-pgbouncer identity-force-race concurrent-senders identity-rate-limit identity-token-leak console-browser)
exclude_args=()
for name in "${source_pass_excludes[@]}"; do exclude_args+=(--exclude "test/e2e/$name.test.ts"); done
AGENT_COMPUTER_TEST_FORM=source node_modules/.bin/bun --bun vitest run test/e2e "${exclude_args[@]}" \
  --reporter=default --reporter=json --outputFile.json=test-artifacts/vitest-source.json || status=1
node -e '
let passed = 0, failed = 0, skipped = 0;
for (const file of ["compiled", "source"]) {
  try {
    const r = require(`./test-artifacts/vitest-${file}.json`);
    passed += r.numPassedTests; failed += r.numFailedTests; skipped += r.numPendingTests + r.numTodoTests;
    for (const suite of r.testResults) {
      const tests = suite.assertionResults.filter((t) => t.status === "failed");
      const path = require("node:path").relative(process.cwd(), suite.name);
      if (tests.length === 0 && suite.status === "failed") console.log(`FAILED (${file}) ${path}: ${suite.message.split("\n")[0]}`);
      for (const t of tests) console.log(`FAILED (${file}) ${path} > ${t.fullName}: ${(t.failureMessages[0] ?? "").split("\n")[0].slice(0, 300)}`);
    }
  } catch { failed += 1; console.log(`FAILED (${file}): no JSON report`); }
}
console.log(`${passed} passed, ${failed} failed` + (skipped ? `, ${skipped} skipped` : ""));
'
exit $status
