// argv facts every binary needs before it knows whether to parse at all. Kept apart from parse.ts so
// the help path never loads the parser or the error mapping.

/** Splits argv at the first "--": options before, free text after. */
export const splitRest = (argv: readonly string[]): { head: string[]; rest: string[] | undefined } => {
  const at = argv.indexOf("--");
  return at === -1 ? { head: [...argv], rest: undefined } : { head: argv.slice(0, at), rest: argv.slice(at + 1) };
};

/** -h/--help anywhere before "--" (a wrapper may have prepended a subcommand word). */
export const wantsHelp = (argv: readonly string[]): boolean => splitRest(argv).head.some((a) => a === "-h" || a === "--help");

export const wantsJson = (argv: readonly string[]): boolean => splitRest(argv).head.includes("--json");
