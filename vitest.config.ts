import { defineConfig } from "vitest/config";

export default defineConfig({
  plugins: [
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
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    fileParallelism: true,
    maxWorkers: 2,
    // Under Bun, vitest's external module loader drops zod's `export * as z`; transforming zod keeps `import { z }` working.
    server: { deps: { inline: ["zod"] } },
  },
});
