// The `bun build` flags of the compiled form, shared by scripts/build.ts and bench/startup.ts (which compiles a
// one-line program with exactly these, as the floor the compiled --help is held against).
//
// ESM with code splitting: each `import()` of the binary registry, the kernel and the store becomes a chunk of its
// own inside the executable, loaded only when that import runs. As one CommonJS bundle (the default with
// --bytecode) no module reached through import() was evaluated early, but the bytecode of the whole bundle was
// loaded at start, before the process knew which binary it was: 4 ms of CPU for nothing. Measured alternatives
// (CPU of `agent-inbox-cli --help` before its text was baked in, 30-40 alternating runs): no --bytecode 85-96 ms;
// CommonJS 16-17; these flags 13-15; ESM without splitting 26; --bytecode-depth=0 or 1 worse; --bytecode-order from
// a recorded run, --min-chunk-size and --minify within the noise. --minify stays for the smaller file.
export const compileFlags = [
  "--compile",
  "--bytecode",
  "--format=esm",
  "--splitting",
  "--minify",
  "--no-compile-autoload-dotenv",
  "--no-compile-autoload-bunfig",
] as const;
