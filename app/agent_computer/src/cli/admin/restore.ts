import * as z from "zod/mini";
import { STORE_ERRORS } from "../../errors.ts";
import type { RestoreResult } from "../../store/admin/restore-store.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { neutralizeLine } from "../kernel/output.ts";
import { ADMIN_ENV } from "./admin-env.ts";

export const restoreOptionsSchema = z.object({
  from: z.string().check(z.minLength(1), z.maxLength(4096), z.describe("a file made by agent-computer-admin backup")),
});
type RestoreOptions = z.output<typeof restoreOptionsSchema>;

const runRestore = async (options: RestoreOptions, { ctx }: DepsOf<"none">): Promise<RestoreResult> =>
  (await import("../../store/admin/restore-store.ts")).restoreStore(ctx.env, options.from);

export default defineCommand({
  name: "agent-computer-admin restore",
  summary: "restore a backup into an empty state directory (SQLite) or an empty database (PostgreSQL)",
  description:
    "SQLite: the state directory (AGENT_COMPUTER_HOME) must be empty or missing; the backup must be an intact " +
    "agent-computer store (quick_check); it is copied in 0600 and opened as every command opens it, which applies the " +
    "migrations this release has and the backup lacks. PostgreSQL: AGENT_COMPUTER_DATABASE_URL must name an existing " +
    "database with no tables; pg_restore (from PATH, password in PGPASSWORD, never argv) loads the pg_dump archive in " +
    "one transaction, then the store is opened and migrated likewise. A target that is not empty is refused with " +
    "CONFLICT and nothing is changed; a restore that fails leaves the target as it was. Agents keep their tokens " +
    "(only hashes are stored): copy the old state directory's tokens/ along if the agents' vault should follow.",
  schema: restoreOptionsSchema,
  flags: { from: { placeholder: "<file>" } },
  writes: "the store file in the state directory (SQLite) or the database's tables (PostgreSQL).",
  output: '{"dialect","from","target","migrations"}',
  errors: ["INVALID_INPUT", "CONFLICT", "NOT_FOUND", "UNAVAILABLE", "TIMEOUT", ...STORE_ERRORS, "INTERNAL"],
  env: ADMIN_ENV,
  examples: [
    "AGENT_COMPUTER_HOME=~/restored agent-computer-admin restore --from store.bak",
    "AGENT_COMPUTER_HOME=~/copy agent-computer-admin restore --from store.bak --json | jq .migrations",
  ],
  needs: { deps: "none" },
  run: runRestore,
  render: (r: RestoreResult) =>
    `restored ${neutralizeLine(r.from)} into ${r.dialect} ${neutralizeLine(r.target)}; it opens, with ${r.migrations} migrations applied`,
});
