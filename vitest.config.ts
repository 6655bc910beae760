import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { defineConfig } from "vitest/config";
import { LongestFirstSequencer } from "./test/setup/longest-first.ts";

/** The console's static files, which Bun imports `with { type: "text" }` (console/assets.ts). */
const CONSOLE_ASSET = /\/console\/(console\.css|console-mesh\.css|live-refresh\.js)$/;
const TEXT_ID = "\0text:";

export default defineConfig({
  plugins: [
    {
      // The same for the console's stylesheet and script: a virtual id, so vite's CSS and JS handling never sees them.
      name: "console-assets-as-text",
      enforce: "pre",
      resolveId(source, importer) {
        const path = importer && source.startsWith(".") ? resolve(dirname(importer), source) : "";
        return CONSOLE_ASSET.test(path) ? `${TEXT_ID}${path}.txt` : undefined;
      },
      load(id) {
        if (!id.startsWith(TEXT_ID)) return undefined;
        return `export default ${JSON.stringify(readFileSync(id.slice(TEXT_ID.length, -".txt".length), "utf8"))};`;
      },
    },
    {
      // Bun imports migrations with `with { type: "text" }`; vite needs to be told a .sql file is a string.
      name: "sql-as-text",
      enforce: "pre",
      transform(code, id) {
        return id.endsWith(".sql") ? { code: `export default ${JSON.stringify(code)};`, map: null } : undefined;
      },
    },
  ],
  test: {
    include: ["test/**/*.test.ts"],
    setupFiles: ["test/setup/isolate-home.ts"],
    globalSetup: ["test/setup/pg-template.ts"],
    // After-hooks run last-registered first, so the setup file's cleanup (registered first) follows a file's own.
    // Files start longest first (test/durations.json), so no long file is left alone on a worker at the end.
    sequence: { hooks: "stack", sequencer: LongestFirstSequencer },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    fileParallelism: true,
    maxWorkers: 2,
    // Under Bun, vitest's external module loader drops zod's `export * as z`; transforming zod keeps `import { z }` working.
    server: { deps: { inline: ["zod"] } },
  },
});
