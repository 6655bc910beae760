// Whether an error should be reported as JSON is known before argv is parsed (a usage error ends parsing early).

/** --json anywhere before "--". */
export const wantsJson = (argv: readonly string[]): boolean => {
  const at = argv.indexOf("--");
  return (at === -1 ? argv : argv.slice(0, at)).includes("--json");
};
