// Every test file runs with HOME, XDG dirs, the state dir and TMPDIR inside one temp dir of its own, so nothing a
// test does can touch the developer's real state, and everything it makes in a temp dir (mkdtemp under
// os.tmpdir(), which reads TMPDIR) goes when the file ends: the last afterAll removes the whole dir. A test run
// that leaves entries in the system's temp dir fails (scripts/test-all.sh counts them).
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

// The system's temp dir as the run found it: a worker process that runs a second file must not nest in the first's.
const systemTmp = process.env.AC_TEST_SYSTEM_TMPDIR || tmpdir();
process.env.AC_TEST_SYSTEM_TMPDIR = systemTmp;
const root = mkdtempSync(join(systemTmp, "ac-test-"));
for (const dir of ["home", "xdg-state", "xdg-config", "xdg-cache", "xdg-data", "state", "tmp"]) {
  mkdirSync(join(root, dir), { recursive: true });
}
process.env.HOME = join(root, "home");
process.env.XDG_STATE_HOME = join(root, "xdg-state");
process.env.XDG_CONFIG_HOME = join(root, "xdg-config");
process.env.XDG_CACHE_HOME = join(root, "xdg-cache");
process.env.XDG_DATA_HOME = join(root, "xdg-data");
process.env.AGENT_COMPUTER_HOME = join(root, "state");
process.env.TMPDIR = join(root, "tmp");
process.env.FORCE_COLOR = "0";
process.env.NO_COLOR = "1";
delete process.env.RELAY_AGENT_TOKEN;
delete process.env.HERDR_ENV;
delete process.env.HERDR_PANE_ID;
process.env.AC_TEST_ROOT = root;

// Registered before the file's own hooks, so it runs after them (vitest runs after-hooks in reverse): the file's
// cleanups (stopping processes, dropping databases) still find their directories.
afterAll(() => {
  rmSync(root, { recursive: true, force: true, maxRetries: 3 });
});
