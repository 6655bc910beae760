// pg_dump and pg_restore get the connection through PG* variables: the password is never in their argv (where `ps`
// shows it to every user), and a failure's message carries pg's last line with the password blanked. A stand-in
// pg_dump on PATH records what it was given and fails, echoing the password as a server error might.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { runPgTool } from "../../app/agent_computer/src/adapters/pg-tools.ts";

const dir = mkdtempSync(join(tmpdir(), "ac-pg-tools-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("the password goes by PGPASSWORD only, and a failure never shows it", async () => {
  const seen = join(dir, "seen");
  writeFileSync(
    join(dir, "pg_dump"),
    `#!/bin/sh\nprintf '%s\\n' "$@" > "${seen}"\nprintf 'pw=%s user=%s db=%s\\n' "$PGPASSWORD" "$PGUSER" "$PGDATABASE" >> "${seen}"\n` +
      `echo "pg_dump: error: password authentication failed: s3cr%t/pw@x" >&2\nexit 1\n`,
  );
  chmodSync(join(dir, "pg_dump"), 0o755);
  const url = "postgres://keeper:s3cr%25t%2Fpw%40x@127.0.0.1:5999/mail";
  const outcome = await runPgTool("pg_dump", ["--format=custom", "--file", join(dir, "out")], url, {
    path: `${dir}:/usr/bin:/bin`,
    timeoutMs: 10_000,
  });
  const [args, env] = readFileSync(seen, "utf8").split(/\n(?=pw=)/) as [string, string];
  expect(args).not.toContain("s3cr");
  expect(args).not.toContain("127.0.0.1");
  expect(env.trim()).toBe("pw=s3cr%t/pw@x user=keeper db=mail");
  expect(outcome).toEqual({ kind: "failed", exitCode: 1, message: "pg_dump: error: password authentication failed: ***" });
});
