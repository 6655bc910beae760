// The --help text of every binary, rendered at build time by scripts/build.ts (it runs each binary's source form)
// and baked into the compiled executable as a `--define`, in a chunk of its own: there `<binary> --help` prints
// it without loading the command, zod or the help renderer. In the source form the table is absent and help is
// rendered as always. test/e2e/static-help.test.ts holds the two forms to the same bytes.

declare const AGENT_COMPUTER_STATIC_HELP: Readonly<Record<string, string>> | undefined;

export const staticHelp = (binary: string): string | undefined => {
  if (typeof AGENT_COMPUTER_STATIC_HELP === "undefined") return undefined;
  return Object.hasOwn(AGENT_COMPUTER_STATIC_HELP, binary) ? AGENT_COMPUTER_STATIC_HELP[binary] : undefined;
};
