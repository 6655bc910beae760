// `<binary> completion <shell>`: the kernel answers it for every binary (kernel/front.ts routes the word here).

import * as z from "zod/mini";
import { AppError } from "../../../errors.ts";
import { neutralizeLine } from "../../../terminal-text.ts";
import type { BinaryDef } from "../command.ts";
import { fishScript } from "./fish-script.ts";
import { completionModel, SHELLS } from "./model.ts";
import { bashScript, zshScript } from "./sh-scripts.ts";

const shellSchema = z.enum(SHELLS);

/** The usage line and help of the completion word, the same in every binary. */
export const completionHelp = (binary: string): string =>
  [
    `${binary} completion — print a shell completion script for ${binary}`,
    "",
    "Completes subcommands, flags and the values of flags that take one of a fixed set, generated from the same",
    "schemas as --help. Needs no store. Writes nothing.",
    "",
    "Usage:",
    `  ${binary} completion bash|zsh|fish`,
    "",
    "Load it:",
    `  bash: source <(${binary} completion bash)   (or save it as ~/.local/share/bash-completion/completions/${binary})`,
    `  zsh:  source <(${binary} completion zsh)    (after compinit; or save it as _${binary} in a directory of $fpath)`,
    `  fish: ${binary} completion fish | source    (or save it as ~/.config/fish/completions/${binary}.fish)`,
    "",
    "Exit codes:",
    "  0 ok · 2 usage error (no shell, or one not supported)",
    "",
  ].join("\n");

export const completionScript = async (binary: BinaryDef, shell: string | undefined): Promise<string> => {
  const parsed = shellSchema.safeParse(shell);
  if (!parsed.success) {
    const got = shell === undefined ? "nothing" : neutralizeLine(shell);
    throw new AppError("INVALID_INPUT", `completion: the shell must be one of ${SHELLS.join(", ")} (got ${got})`, {
      hint: `usage: ${binary.name} completion bash|zsh|fish`,
    });
  }
  const nodes = await completionModel(binary);
  if (parsed.data === "bash") return bashScript(binary.name, nodes);
  if (parsed.data === "zsh") return zshScript(binary.name, nodes);
  return fishScript(binary.name, nodes);
};
