import * as z from "zod/mini";
import { STORE_ERRORS } from "../../errors.ts";
import type { BackupResult } from "../../store/admin/backup-store.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { neutralizeLine } from "../kernel/output.ts";
import { ADMIN_ENV } from "./admin-env.ts";

export const backupOptionsSchema = z.object({
  to: z
    .string()
    .check(
      z.minLength(1),
      z.maxLength(4096),
      z.describe("the new file the backup goes to (created 0600; never an existing file)"),
    ),
});
type BackupOptions = z.output<typeof backupOptionsSchema>;

const runBackup = async (options: BackupOptions, { ctx }: DepsOf<"none">): Promise<BackupResult> =>
  (await import("../../store/admin/backup-store.ts")).backupStore(ctx.env, options.to);

export default defineCommand({
  name: "agent-computer-admin backup",
  summary: "copy the store to a file while it is in use: SQLite's VACUUM INTO, or pg_dump for PostgreSQL",
  description:
    "SQLite: VACUUM INTO from a read connection of its own, the database as of one commit, taken while agents and " +
    "the worker keep writing (they are not blocked). PostgreSQL: runs pg_dump --format=custom (from PATH; its major " +
    "version must not be older than the server's) with the connection in PG* variables, so the password is never " +
    "in argv; without pg_dump the error says how to run it by hand. The file is created 0600 and never overwrites one. " +
    "It holds the store only: each host's state directory keeps its token vault (tokens/), console token and wake " +
    "state, which a restore does not need (tokens are checked against the hashes in the store). Restore with " +
    "agent-computer-admin restore --from <file>.",
  schema: backupOptionsSchema,
  flags: { to: { placeholder: "<file>" } },
  writes: "the --to file only.",
  output: '{"dialect","source","file","bytes","method":"vacuum_into|pg_dump"}',
  errors: ["INVALID_INPUT", "CONFLICT", "NOT_FOUND", "UNAVAILABLE", "TIMEOUT", ...STORE_ERRORS, "INTERNAL"],
  env: ADMIN_ENV,
  examples: [
    'agent-computer-admin backup --to "agent-computer-$(date +%F).sqlite"',
    "agent-computer-admin backup --to store.bak --json | jq .bytes",
  ],
  needs: { deps: "none" },
  run: runBackup,
  render: (r: BackupResult) =>
    `backed up ${r.dialect} ${neutralizeLine(r.source)} to ${neutralizeLine(r.file)} (${r.bytes} bytes, ${r.method.replace("_", " ")})`,
});
