// The `bun build` flags of the compiled form, shared by scripts/build.ts and bench/startup.ts (which compiles a
// one-line program with exactly these, as the floor the compiled --help is held against).
//
// ESM with code splitting: each `import()` of the registry and of the kernel becomes a chunk of its own inside the
// executable, loaded only when that import runs. As one CommonJS bundle (the default with --bytecode) the process
// loaded the bytecode of every binary's code at start, before it knew which binary it was: --help of one command
// took 4 to 5 ms of CPU more (bench/results/startup.json). --minify changes nothing measurable; it only saves bytes.
export const compileFlags = [
  "--compile",
  "--bytecode",
  "--format=esm",
  "--splitting",
  "--minify",
  "--no-compile-autoload-dotenv",
  "--no-compile-autoload-bunfig",
] as const;
