// No token ever appears in any output except the one-time mint: a whole identity session (successes, every kind
// of error, human and --json output) is captured through the real binaries and searched, and so are the store and
// the state directory (only the vault may hold a token).
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runBin } from "../helpers/bin.ts";
import { identityEnv } from "../helpers/identity.ts";
import { createStoreTarget, type StoreTarget, storeNames } from "../helpers/stores.ts";

const TOKEN = /ac[tr]_[A-Za-z0-9_-]{43}/g;

interface Captured {
  label: string;
  text: string;
  /** The token this call printed on purpose (its one-time mint), if any. */
  minted?: string;
}

describe.each(storeNames)("token secrecy on %s", (storeName) => {
  let target: StoreTarget;
  let env: Record<string, string>;
  let home: string;
  const captured: Captured[] = [];
  const minted: string[] = [];
  const file = (name: string, text: string): string => {
    const path = join(home, `${name}.secret`);
    writeFileSync(path, text, { mode: 0o600 });
    return path;
  };
  /** Runs a binary, keeps everything it printed; `mint` names the JSON field (or human line) holding a new token. */
  const run = async (
    label: string,
    name: string,
    args: string[],
    options: { extra?: Record<string, string>; input?: string; mint?: "agent_token" | "recovery_token" } = {},
  ) => {
    const r = await runBin(name, args, { env: { ...env, ...options.extra }, ...(options.input ? { input: options.input } : {}) });
    const entry: Captured = { label, text: `${r.stdout}\n${r.stderr}` };
    if (options.mint) {
      const token = args.includes("--json") ? r.json<Record<string, string>>()[options.mint] : (r.stdout.match(TOKEN) ?? [])[0];
      expect(token, `${label} minted a token`).toMatch(/^ac[tr]_/);
      entry.minted = token as string;
      minted.push(token as string);
    }
    captured.push(entry);
    return r;
  };
  const reg = (name: string, extra: string[] = []) => ["--name", name, "--role", "builder", "--capabilities", "ts", ...extra];

  beforeAll(async () => {
    target = await createStoreTarget(storeName);
    env = identityEnv(target, { AGENT_COMPUTER_RATE_SEND_PER_NAME: "1/3600" });
    home = target.env.AGENT_COMPUTER_HOME as string;
  });
  afterAll(() => target.dispose());

  test("a whole session of successes and failures prints each token only where it is minted", async () => {
    await run("register lead --json", "register-agent-cli", [...reg("leak-lead"), "--json"], { mint: "agent_token" });
    const lead = minted[0] as string;
    await run("register b (human)", "register-agent-cli", reg("leak-b"), { mint: "agent_token" });
    const b = minted[1] as string;
    const bFile = file("b", b);

    await run("wrong token presented", "register-agent-cli", [...reg("leak-b"), "--json"], {
      extra: { RELAY_AGENT_TOKEN: lead },
    });
    await run("wrong token presented (human)", "register-agent-cli", reg("leak-b"), { extra: { RELAY_AGENT_TOKEN: lead } });
    await run("collision", "register-agent-cli", [...reg("leak-b"), "--token-file", bFile, "--json"]);
    await run("collision (human)", "register-agent-cli", [...reg("leak-b"), "--token-file", bFile]);
    const stale = `ses_${"0".repeat(32)}`;
    await run("stale force", "register-agent-cli", [...reg("leak-b", ["--force", "--expected-session-id", stale]), "--json"]);
    await run("send", "agent-send-cli", ["--from", "leak-lead", "--to", "leak-b", "--body", "hi", "--json"]);
    await run("send rate limited", "agent-send-cli", ["--from", "leak-lead", "--to", "leak-b", "--body", "hi", "--json"], {
      extra: { RELAY_AGENT_TOKEN: lead },
    });
    await run("send with b's token as lead", "agent-send-cli", ["--from", "leak-lead", "--to", "leak-b", "--body", "x"], {
      extra: { RELAY_AGENT_TOKEN: b },
    });
    await run("show", "agent-identity-cli", ["show", "--name", "leak-b", "--json"]);
    await run("show (human)", "agent-identity-cli", ["show", "--name", "leak-b", "--token-file", bFile]);
    await run("no-op expansion", "agent-identity-cli", ["expand-capabilities", "--name", "leak-b", "--add", "ts", "--json"]);
    await run("reduction", "agent-identity-cli", ["expand-capabilities", "--name", "leak-b", "--remove", "ts"]);
    await run("rotate --json", "agent-identity-cli", ["rotate-token", "--name", "leak-b", "--json"], { mint: "agent_token" });
    await run("rotate (human)", "agent-identity-cli", ["rotate-token", "--name", "leak-b"], { mint: "agent_token" });
    await run("old token after rotation", "agent-identity-cli", ["show", "--name", "leak-b", "--token-file", bFile, "--json"]);
    const current = minted.at(-1) as string;
    await run("revoke with recovery", "agent-identity-cli", ["revoke-token", "--name", "leak-b", "--issue-recovery", "--json"], {
      extra: { RELAY_AGENT_TOKEN: current },
      mint: "recovery_token",
    });
    const recovery = minted.at(-1) as string;
    await run("revoked token used", "agent-inbox-cli", ["--agent-id", "leak-b", "--json"], {
      extra: { RELAY_AGENT_TOKEN: current },
    });
    await run("register without recovery", "register-agent-cli", reg("leak-b"), { extra: { RELAY_AGENT_TOKEN: current } });
    await run("wrong recovery", "register-agent-cli", [
      ...reg("leak-b", ["--recovery-token-file", file("wrong", "acr_wrong")]),
      "--json",
    ]);
    await run(
      "recovery with a stale agent token as recovery token",
      "register-agent-cli",
      reg("leak-b", ["--recovery-token-file", bFile]),
    );
    await run("recovery (human)", "register-agent-cli", reg("leak-b", ["--recovery-token-file", "-"]), {
      input: recovery,
      mint: "agent_token",
    });
    await run("recovery token reused", "register-agent-cli", [...reg("leak-b", ["--recovery-token-file", "-"]), "--json"], {
      input: recovery,
    });
    await run("post", "agent-task-cli", [
      "post",
      "--agent-id",
      "leak-lead",
      "--title",
      "t",
      "--body",
      "b",
      "--require-cap",
      "ts",
      "--json",
    ]);
    await run("list", "agent-task-cli", ["list", "--agent-id", "leak-b", "--scope", "all"]);
    await run("directory", "agents-list-cli", ["--agent-id", "leak-b", "--include-stale", "--json"]);
    await run("inbox", "agent-inbox-cli", ["--agent-id", "leak-b"]);
    await run("first check-in (human)", "agent-checkin-cli", ["--agent-id", "leak-c", "--confirm"], { mint: "agent_token" });
    await run("unregister", "agent-identity-cli", ["unregister", "--name", "leak-c", "--confirm", "--json"]);
    await run("unknown agent with a token", "agent-identity-cli", ["show", "--name", "leak-c"], {
      extra: { RELAY_AGENT_TOKEN: lead },
    });
    await run("help", "register-agent-cli", ["--help"]);

    // The failures above really were failures of each kind (so their outputs are worth searching).
    const failures: Record<string, string> = {
      "wrong token presented": "AUTH_FAILED",
      collision: "NAME_COLLISION_ACTIVE",
      "stale force": "FORCE_PRECONDITION_FAILED",
      "send rate limited": "RATE_LIMITED",
      "send with b's token as lead": "AUTH_FAILED",
      "no-op expansion": "NO_OP_EXPANSION",
      reduction: "REDUCTION_NOT_ALLOWED",
      "old token after rotation": "AUTH_FAILED",
      "revoked token used": "RECOVERY_REQUIRED",
      "register without recovery": "AUTH_FAILED",
      "wrong recovery": "RECOVERY_REQUIRED",
      "recovery token reused": "AUTH_FAILED",
      "unknown agent with a token": "UNKNOWN_AGENT",
    };
    for (const [label, code] of Object.entries(failures)) {
      expect(captured.find((c) => c.label === label)?.text, label).toContain(code);
    }
    expect(minted).toHaveLength(7);
    expect(new Set(minted).size).toBe(minted.length);
    for (const token of minted) {
      const holders = captured.filter((c) => c.text.includes(token)).map((c) => c.label);
      expect(holders, `outputs showing ${token.slice(0, 4)}…`).toEqual(
        captured.filter((c) => c.minted === token).map((c) => c.label),
      );
    }
    for (const c of captured) {
      const seen = (c.text.match(TOKEN) ?? []).filter((t) => t !== c.minted);
      expect(seen, `${c.label} prints no token but its own mint`).toEqual([]);
    }
  });

  test("the store and the state directory hold no token; only the vault does, 0600", async () => {
    const dump: string[] = [];
    for (const table of ["agents", "sessions", "messages", "deliveries", "tasks", "rate_buckets"]) {
      dump.push(JSON.stringify(await target.sql(`SELECT * FROM ${table}`)));
    }
    const files: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir)) {
        const path = join(dir, entry);
        if (statSync(path).isDirectory()) walk(path);
        else files.push(path);
      }
    };
    walk(home);
    const vault = files.filter((f) => f.includes(`${join(home, "tokens")}/`));
    const others = files.filter((f) => !vault.includes(f) && !f.endsWith(".secret"));
    const everything = [...dump, ...others.map((f) => readFileSync(f).toString("latin1"))].join("\n");
    for (const token of minted) expect(everything.includes(token), `${token.slice(0, 4)}… stored outside the vault`).toBe(false);
    for (const f of vault) expect(statSync(f).mode & 0o777).toBe(0o600);
    expect(vault.map((f) => f.slice(f.lastIndexOf("/") + 1)).sort()).toEqual(["leak-b.token", "leak-lead.token"]);
  });
});
