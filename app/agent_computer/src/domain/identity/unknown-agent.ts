import { nearestWords } from "../../close-words.ts";
import { commandLine } from "../../command-line.ts";
import { AppError } from "../../errors.ts";
import type { StoreTx } from "../../store/port.ts";
import { nameKey } from "./names.ts";

/** Edits a typo of a registered name may be away from it: one or two, three for long names. */
const editsAllowed = (name: string): number => (name.length >= 12 ? 3 : 2);
// Names read to find a typo's neighbours: the error path of a store of any size stays one bounded read.
const NAMES_READ = 20_000;
const SUGGESTED = 3;
export const DIRECTORY_HINT = "agents-list-cli --include-stale lists the registered names";

/** The hint that offers registered names instead of the one typed. */
export const didYouMeanHint = (near: readonly string[]): string => `did you mean ${near.join(" or ")}? (${DIRECTORY_HINT})`;

/** Registered names close to `name`: the one it is a lookalike of first (case, trailing . _ -), then the nearest. */
export const namesNear = async (tx: StoreTx, name: string): Promise<string[]> => {
  const edits = editsAllowed(name);
  const lookalike = await tx.identity.nameWithKey(nameKey(name));
  const near = nearestWords(name, await tx.identity.namesOfLength(name.length - edits, name.length + edits, NAMES_READ), edits);
  return [...new Set([...(lookalike && lookalike !== name ? [lookalike] : []), ...near])].slice(0, SUGGESTED);
};

/**
 * UNKNOWN_AGENT for a name nobody registered. When registered names are close to it, it was most likely mistyped:
 * the hint names them and never offers to register the typo; otherwise it says how a new name is registered.
 */
export const unknownAgent = async (tx: StoreTx, name: string): Promise<AppError> => {
  const near = await namesNear(tx, name);
  const hint =
    near.length > 0
      ? didYouMeanHint(near)
      : `${DIRECTORY_HINT}; a new agent registers with ${commandLine("agent-checkin-cli", "--agent-id", name, "--confirm")} (see agent-checkin-cli --help)`;
  return new AppError("UNKNOWN_AGENT", `no agent named ${name} is registered`, {
    hint,
    ...(near.length > 0 ? { details: { did_you_mean: near } } : {}),
  });
};
