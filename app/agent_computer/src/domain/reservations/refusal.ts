import { AppError } from "../../errors.ts";
import type { Conflict } from "./conflicts.ts";

/** Holders named in a refusal; the count says how many more there were. */
const SHOWN_CONFLICTS = 10;

export const conflictError = (conflicts: readonly Conflict[], what: string, hint: string): AppError => {
  const shown = conflicts.slice(0, SHOWN_CONFLICTS);
  const lines = shown.map(
    (c) =>
      `${c.holder} holds ${c.patterns.join(", ")} (${c.exclusive ? "exclusive" : "shared"}) until ${c.expires_at}` +
      (c.paths ? ` [${c.paths.join(", ")}]` : ""),
  );
  const more = conflicts.length > shown.length ? `; and ${conflicts.length - shown.length} more` : "";
  return new AppError("CONFLICT", `${what}: ${lines.join("; ")}${more}`, {
    hint,
    details: { conflicts: shown, more: conflicts.length - shown.length },
  });
};
