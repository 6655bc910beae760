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
  command -v tmux >/dev/null || need_apt+=(tmux)
  # test/e2e/completion.test.ts loads the completion scripts in real zsh and fish, not only bash.
  command -v zsh >/dev/null || need_apt+=(zsh)
  command -v fish >/dev/null || need_apt+=(fish)
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

# The whole suite runs once, against the compiled form (what `npm ci` builds for users). The source form (what the
# launchers run when dist/ is missing or built from another commit) runs the same modules; what it must prove is that
# every launcher starts the TypeScript entry with the project's Bun, and test/e2e/source-form.test.ts proves that in
# this pass: each binary's --help, one write and one read per family, and the worker's start, all from source.
# The run must leave nothing behind: scripts/leftovers.ts fails it on a new temp entry, PostgreSQL database, network
# namespace or process of this checkout, naming each.
rm -rf test-artifacts && mkdir -p test-artifacts
status=0
node_modules/.bin/bun scripts/leftovers.ts snapshot test-artifacts/before-run.json
AGENT_COMPUTER_TEST_FORM=compiled node_modules/.bin/bun --bun vitest run \
  --reporter=default --reporter=json --outputFile.json=test-artifacts/vitest-compiled.json || status=1
node_modules/.bin/bun scripts/leftovers.ts compare test-artifacts/before-run.json || status=1
node -e '
let passed = 0, failed = 0, skipped = 0;
for (const file of ["compiled"]) {
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
try {
  const left = require("./test-artifacts/leftovers.json");
  for (const line of left) console.log(`FAILED (leftover) ${line}`);
  failed += left.length;
} catch { failed += 1; console.log("FAILED (leftover): no leftovers report"); }
console.log(`${passed} passed, ${failed} failed` + (skipped ? `, ${skipped} skipped` : ""));
'
exit $status
