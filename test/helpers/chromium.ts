// Debian's Chromium driven by playwright-core, which never downloads a browser of its own. Each launch gets
// a fresh profile directory. A missing or broken browser fails the suite loudly; it is never skipped.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, type BrowserContextOptions, chromium } from "playwright-core";

export const CHROMIUM_PATH = "/usr/bin/chromium";

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** A headless Chromium with its own fresh --user-data-dir, removed again on close. */
export const launchChromium = async (options: BrowserContextOptions = {}): Promise<Browser> => {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM_PATH}; the console's browser tests need it: ` +
        "apt-get install -y chromium (scripts/test-all.sh installs it when run as root)",
    );
  }
  const profile = mkdtempSync(join(tmpdir(), "ac-chromium-"));
  let context: BrowserContext;
  try {
    // Playwright passes the profile to Chromium as --user-data-dir.
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: ARGS,
      timeout: 30_000,
      ...options,
    });
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw new Error(`Chromium at ${CHROMIUM_PATH} did not start: ${(error as Error).message}`, { cause: error });
  }
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
};
