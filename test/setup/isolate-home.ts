// Every test file runs with HOME, XDG dirs and the state dir inside its own temp dir,
// so nothing a test does can touch the developer's real state.
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = mkdtempSync(join(tmpdir(), "ac-test-"));
for (const dir of ["home", "xdg-state", "xdg-config", "xdg-cache", "xdg-data", "state"]) {
  mkdirSync(join(root, dir), { recursive: true });
}
process.env.HOME = join(root, "home");
process.env.XDG_STATE_HOME = join(root, "xdg-state");
process.env.XDG_CONFIG_HOME = join(root, "xdg-config");
process.env.XDG_CACHE_HOME = join(root, "xdg-cache");
process.env.XDG_DATA_HOME = join(root, "xdg-data");
process.env.AGENT_COMPUTER_HOME = join(root, "state");
process.env.FORCE_COLOR = "0";
process.env.NO_COLOR = "1";
delete process.env.RELAY_AGENT_TOKEN;
delete process.env.HERDR_ENV;
delete process.env.HERDR_PANE_ID;
process.env.AC_TEST_ROOT = root;
