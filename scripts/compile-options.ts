// How the compiled form is built, shared by scripts/build.ts, bench/startup.ts (which compiles a one-line program
// with exactly these options, as the floor the compiled --help is held against) and test/unit/build-chunks.test.ts.
//
// ESM with code splitting: each `import()` of the binary registry, the kernel and the store becomes a chunk of its
// own inside the executable, loaded only when that import runs. As one CommonJS bundle (the default with bytecode)
// no module reached through import() was evaluated early, but the bytecode of the whole bundle was loaded at start,
// before the process knew which binary it was: 4 ms of CPU for nothing. Measured alternatives (CPU of
// `agent-inbox-cli --help` before its text was baked in, 30-40 alternating runs): no bytecode 85-96 ms; CommonJS
// 16-17; these options 13-15; ESM without splitting 26; bytecodeDepth 0 or 1 worse; bytecodeOrder from a recorded
// run and minify within the noise. minify stays for the smaller file.

import type { BuildConfig, BunPlugin } from "bun";

/**
 * commander's command.js requires node:child_process and node:fs when it loads, for executable subcommands (a
 * separate program per subcommand), which no binary here uses. Loading those two built-ins cost 1.7 ms of CPU in
 * every command (a compiled program that only imports commander: 9.7 against 8.0 ms, 100 alternating runs). Here
 * each becomes a proxy that requires the module on first use. The build fails if commander stops requiring them
 * this way, rather than shipping an unmeasured change.
 */
export const commanderLazyBuiltins: BunPlugin = {
  name: "commander-lazy-builtins",
  setup(build) {
    build.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, async ({ path }) => {
      let contents = await Bun.file(path).text();
      for (const builtin of ["node:child_process", "node:fs"]) {
        const eager = `require('${builtin}')`;
        if (!contents.includes(eager)) throw new Error(`${path} no longer has ${eager}: revisit scripts/compile-options.ts`);
        contents = contents.replace(eager, `new Proxy({}, { get: (_, key) => require('${builtin}')[key] })`);
      }
      return { contents, loader: "js" };
    });
  },
};

/**
 * The bundle of `entrypoints` as the compiled form holds it (the first is the program; a Worker's program is
 * bundled only as an entry point of its own); `define` replaces global identifiers at build time.
 */
export const bundleOptions = (entrypoints: string[], define: Record<string, string> = {}) =>
  ({
    entrypoints,
    target: "bun",
    format: "esm",
    splitting: true,
    define,
    plugins: [commanderLazyBuiltins],
  }) satisfies BuildConfig;

/** The compiled executable: bytecode, minified, never autoloading .env or bunfig.toml from the working directory. */
export const compileOptions = (entrypoints: string[], outfile: string, define: Record<string, string> = {}): BuildConfig => ({
  ...bundleOptions(entrypoints, define),
  bytecode: true,
  minify: true,
  compile: { outfile, autoloadDotenv: false, autoloadBunfig: false },
});
