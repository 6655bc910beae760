// The error codes each --help prints must equal the codes its code can throw. The codes thrown are found by a
// static scan of the command module's import graph for `new AppError("CODE"`, so neither side can drift alone.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, expect, test } from "vitest";
import type { CommandDef } from "../../app/agent_computer/src/cli/kernel/command.ts";
import { STORE_ERRORS } from "../../app/agent_computer/src/errors.ts";
import { allCommands } from "../helpers/registry.ts";

const SRC = resolve(import.meta.dirname, "../../app/agent_computer/src");
/** The families this check covers: every family of commands. */
const FAMILIES = ["identity", "mesh", "herdr", "automation", "worker", "reserve"];
/**
 * Codes no module graph shows but every command can produce: argv parsing and schema validation (kernel/parse.ts,
 * run by kernel/run-binary.ts) and a bug (kernel/run-binary.ts).
 */
const ALWAYS = ["INVALID_INPUT", "INTERNAL"];
/**
 * Codes no module graph shows but every command that opens the store (or writes a file: kernel/run-binary.ts turns a full
 * disk met anywhere into DISK_FULL) can produce: the store's environment (errors.ts STORE_ERRORS: the drivers'
 * error tables and store/open.ts, loaded by ctx.store()).
 */
const STORE_ENVIRONMENT = [...STORE_ERRORS];
/** Commands that never open the store and write nothing, so STORE_ENVIRONMENT is not theirs. Each says why. */
const INSPECT_ONLY = "reads Herdr through the read-only client only (cli/herdr/inspect-shared.ts)";
const NO_STORE: Record<string, string> = {
  "herdr-inspect-cli status": INSPECT_ONLY,
  "herdr-inspect-cli sessions": INSPECT_ONLY,
  "herdr-inspect-cli topology": INSPECT_ONLY,
  "herdr-inspect-cli read": INSPECT_ONLY,
  "herdr-lease-cli wait-any": "reads Herdr only (domain/herdr/wait-any.ts); its deps' store is opened lazily and never read",
  "herdr-agent-control receipts": "reads this host's receipt files only (domain/herdr/inventory.ts receiptList)",
  "herdr-lease-cli bridge-status": "inspects this host's reservation lock files only (domain/herdr/inventory.ts bridgeStatus)",
  "agent-reserve-cli git-hook install": "asks git and writes the repository's hook files only (local/git-hooks.ts)",
};
/**
 * Codes the scan finds in a module a command imports but on a path that command never takes. Each entry says why;
 * the test also fails when an entry stops being found, so this list cannot rot.
 */
/** One reason for several codes of one command. */
const exempt = (codes: readonly string[], why: string): Record<string, string> =>
  Object.fromEntries(codes.map((code) => [code, why]));

function automationExemptions(): Record<string, Record<string, string>> {
  const JOB_LOOKUP = "only show, cancel and trigger creation look a job up by id (domain/automation/jobs.ts ownedJob)";
  const JOB_CANCEL = "only cancel refuses a cancelled job (domain/automation/jobs.ts, one module for every job action)";
  const TRIGGER_ACTIONS = "only cancel-trigger and trigger creation refuse (domain/automation/triggers.ts, one module)";
  return {
    "create-automation-job-cli": { NOT_FOUND: JOB_LOOKUP, CONFLICT: JOB_CANCEL },
    "list-automation-jobs-cli": { NOT_FOUND: JOB_LOOKUP, CONFLICT: JOB_CANCEL },
    "show-automation-job-cli": { CONFLICT: JOB_CANCEL },
    "list-triggers-cli": exempt(["NOT_FOUND", "CONFLICT"], TRIGGER_ACTIONS),
  };
}

function herdrExemptions(): Record<string, Record<string, string>> {
  const CLOSE_ONLY = "only close closes a pane (domain/herdr/close-leased.ts), loaded by the module start shares with close";
  const ACQUIRE_PATH =
    "controller-lease.ts is loaded for its binding helpers; only resume (supersededIn), renew and release (loadAuthority) fence";
  const SWEPT =
    "a reviewer whose close is refused is reported as preserved with the reason; only a CONTROLLER_* error ends the sweep " +
    "(domain/herdr/reviewer-sweep.ts)";
  const INVENTORY_VIEW =
    "domain/herdr/inventory.ts serves status, receipts and bridge-status: it loads the lease, receipt, lock and identity " +
    "modules, but each view only reads files (and status the store and `herdr agent list`, whose failure it reports as unknown)";
  const inventoryCodes = ["CONFLICT", "IDENTITY_CHANGED", "RESERVATION_BUSY", "CONTROLLER_AUTH_FAILED"];
  const herdrCodes = ["UNAVAILABLE", "NOT_FOUND", "TIMEOUT", "HERDR_REFUSED"];
  return {
    "herdr-agent-control status": exempt([...inventoryCodes, ...herdrCodes], INVENTORY_VIEW),
    "herdr-agent-control receipts": exempt([...inventoryCodes, ...herdrCodes], INVENTORY_VIEW),
    "herdr-lease-cli bridge-status": exempt(
      [...inventoryCodes, ...herdrCodes, "CONTROLLER_CONTEXT_MISSING"],
      `${INVENTORY_VIEW}; bridge-status needs no controller id`,
    ),
    "herdr-lease-cli controller acquire": exempt(["CONTROLLER_FENCED", "CONTROLLER_EXPIRED"], ACQUIRE_PATH),
    "herdr-lease-cli controller resume": {
      CONTROLLER_EXPIRED:
        "resume replaces the lease; it never checks the old one's expiry (loadAuthority is renew's and release's)",
    },
    "herdr-lease-cli controller takeover": exempt(["CONTROLLER_FENCED", "CONTROLLER_EXPIRED"], ACQUIRE_PATH),
    "herdr-lease-cli controller renew": {
      CONTROLLER_HELD: "only acquire and resume meet a holder (controller-lease.ts bindNewLease)",
    },
    "herdr-lease-cli controller release": {
      CONTROLLER_HELD: "only acquire and resume meet a holder (controller-lease.ts bindNewLease)",
    },
    "herdr-lease-cli reviewer start": exempt(["AGENT_NOT_SETTLED", "CURSOR_MOVED", "RECEIPT_OUTSTANDING"], CLOSE_ONLY),
    "herdr-lease-cli writer start": exempt(["AGENT_NOT_SETTLED", "CURSOR_MOVED", "RECEIPT_OUTSTANDING"], CLOSE_ONLY),
    "herdr-lease-cli writer release": {
      SCOPE_CONFLICT: "only writer start admits scopes (domain/herdr/writer.ts holds start and release)",
    },
    "herdr-lease-cli adopt": {
      RECEIPT_OUTSTANDING: "only adopted close closes a pane (domain/herdr/adopt.ts holds adopt and close)",
    },
    "herdr-lease-cli reviewer sweep": exempt(
      ["AGENT_NOT_SETTLED", "CONFLICT", "CURSOR_MOVED", "IDENTITY_CHANGED", "RECEIPT_OUTSTANDING", "RESERVATION_BUSY"],
      SWEPT,
    ),
    "herdr-lease-cli inventory": exempt(
      ["CONFLICT", "IDENTITY_CHANGED"],
      "inventory compares identities only of leases that recorded their terminal (so leaseIdentity never refuses) and " +
        "never re-reads a leased agent (observeLeased)",
    ),
    "herdr-lease-cli reconcile": {
      CONFLICT: "reconcile reads and ends leases itself (readLease, saveLease); it never requires one active (leases.ts)",
    },
  };
}

const CHANNEL_POSTS_ONLY = "only post and read require membership (domain/mesh/channels.ts, one module for every action)";
const CHANNEL_CREATE_ONLY = "only create refuses a name that exists (domain/mesh/channels.ts, one module for every action)";
const CHANNEL_POST_COUNTED = "only post sends a message, which the rate limits count (domain/mesh/channels.ts, one module)";
const WEBHOOK_ADD_ONLY =
  "only add refuses an agent that has the most endpoints (domain/outbound-webhooks/endpoints.ts, one module for every action)";
const WEBHOOK_NO_ENDPOINT_NAMED = "it names no endpoint, so none can be missing (domain/outbound-webhooks/endpoints.ts)";
const UNREACHABLE: Record<string, Record<string, string>> = {
  "agent-checkin-cli": {
    UNKNOWN_AGENT: "authenticate() runs only for a name that exists; an unknown name is registered instead",
  },
  "agent-channel-cli create": {
    NOT_FOUND: "the channel is read back in the transaction that created it",
    NOT_A_MEMBER: CHANNEL_POSTS_ONLY,
    RATE_LIMITED: CHANNEL_POST_COUNTED,
  },
  "agent-channel-cli join": {
    CONFLICT: CHANNEL_CREATE_ONLY,
    NOT_A_MEMBER: CHANNEL_POSTS_ONLY,
    RATE_LIMITED: CHANNEL_POST_COUNTED,
  },
  "agent-channel-cli leave": {
    CONFLICT: CHANNEL_CREATE_ONLY,
    NOT_A_MEMBER: CHANNEL_POSTS_ONLY,
    RATE_LIMITED: CHANNEL_POST_COUNTED,
  },
  "agent-channel-cli list": {
    CONFLICT: CHANNEL_CREATE_ONLY,
    NOT_A_MEMBER: CHANNEL_POSTS_ONLY,
    NOT_FOUND: "list names no channel, so none can be missing",
    RATE_LIMITED: CHANNEL_POST_COUNTED,
  },
  "agent-channel-cli post": { CONFLICT: CHANNEL_CREATE_ONLY },
  "agent-channel-cli read": { CONFLICT: CHANNEL_CREATE_ONLY, RATE_LIMITED: CHANNEL_POST_COUNTED },
  "agent-webhook-cli add": { NOT_FOUND: WEBHOOK_NO_ENDPOINT_NAMED },
  "agent-webhook-cli list": { CONFLICT: WEBHOOK_ADD_ONLY, NOT_FOUND: WEBHOOK_NO_ENDPOINT_NAMED },
  "agent-webhook-cli remove": { CONFLICT: WEBHOOK_ADD_ONLY },
  "agent-webhook-cli enable": { CONFLICT: WEBHOOK_ADD_ONLY },
  "agent-webhook-cli rotate-secret": { CONFLICT: WEBHOOK_ADD_ONLY },
  "agent-webhook-cli deliveries": { CONFLICT: WEBHOOK_ADD_ONLY },
  "agent-computer-worker": {
    ...exempt(
      ["AUTH_FAILED", "RECOVERY_REQUIRED", "UNKNOWN_AGENT"],
      "loaded with domain/mesh/live-session.ts for the console's directory (console/routes.ts), which authenticates no " +
        "agent token; a console request's failure is its HTTP answer, never the worker's exit",
    ),
    ...exempt(
      ["CONFLICT", "NOT_FOUND"],
      "domain/outbound-webhooks/endpoints.ts is loaded for the console's Webhooks page (webhooksOverview), which only reads; " +
        "add, remove and enable, which refuse, are agent-webhook-cli's",
    ),
    ...exempt(
      [
        "FORCE_PRECONDITION_FAILED",
        "IDEMPOTENCY_CONFLICT",
        "MESSAGE_NOT_FOUND",
        "NAME_COLLISION_ACTIVE",
        "NAME_LOOKALIKE",
        "NOT_A_MEMBER",
        "NOT_CHECKED_IN",
        "RATE_LIMITED",
        "REFUSED_BY_POLICY",
        "UNAVAILABLE",
      ],
      "the console's writes (console/write-routes.ts: its human agent's registration, sends, channel posts, mark read) " +
        "answer a refusal as the form's page with its HTTP status, never the worker's exit",
    ),
  },
  ...automationExemptions(),
  ...herdrExemptions(),
};

/**
 * Codes a shared module throws only when its caller asks for it: the code counts for a command only when its
 * graph contains a call that asks. Keeps the scan exact without one exemption per command.
 */
const CONDITIONAL = [
  {
    module: "errors.ts",
    code: "DISK_FULL",
    askedBy: /\bdiskFullElsewhere\(/,
    why: "diskFullElsewhere maps a full disk met outside the store; only a command that writes a file meets one",
  },
  {
    module: "domain/mesh/live-session.ts",
    code: "NOT_CHECKED_IN",
    askedBy: /enterMesh\([^;]*?,\s*true\s*(?:,\s*\w+\s*)?\)/,
    why: "enterMesh throws it only with require=true (inbox, ack)",
  },
];

/**
 * Modules that build an AppError from a code given to a factory: each call of the factory names the code literally,
 * so the scan reads the calls instead.
 */
const FACTORIES = [{ module: "store/postgres/error-mapping.ts", call: /\bappError\(\s*"([A-Z_]+)"/g }];

const VALUE_IMPORT = /^\s*(?:import|export)\s+(?!type\b)[^;]*?\bfrom\s+["'](\.{1,2}\/[^"']+)["']/gm;
const DYNAMIC_IMPORT = /import\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g;
const THROWN = /new AppError\(\s*"([A-Z_]+)"/g;

/** Every module a file loads at run time (type-only imports erase), following relative imports only. */
const moduleGraph = (entry: string): string[] => {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file) || !file.endsWith(".ts")) return;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    for (const pattern of [VALUE_IMPORT, DYNAMIC_IMPORT]) {
      for (const match of text.matchAll(pattern)) visit(resolve(dirname(file), match[1] as string));
    }
  };
  visit(entry);
  return [...seen];
};

const thrownCodes = (files: string[]): Set<string> => {
  const codes = new Set<string>();
  const texts = files.map((file) => readFileSync(file, "utf8"));
  for (const [i, file] of files.entries()) {
    const text = texts[i] as string;
    // A computed code would hide from the scan; every AppError in the graph must name its code literally.
    const all = text.match(/new AppError\(/g)?.length ?? 0;
    const literal = [...text.matchAll(THROWN)];
    const factory = FACTORIES.find((f) => file === join(SRC, f.module));
    expect(literal.length + (factory ? 1 : 0), `${file}: every new AppError( names its code as a string literal`).toBe(all);
    for (const match of factory ? text.matchAll(factory.call) : []) codes.add(match[1] as string);
    const conditional = CONDITIONAL.filter((c) => file === join(SRC, c.module));
    for (const match of literal) {
      const rule = conditional.find((c) => c.code === match[1]);
      if (!rule || texts.some((t) => rule.askedBy.test(t))) codes.add(match[1] as string);
    }
  }
  return codes;
};

/** The module that defines each command, found by loading every file of the covered families. */
const definingFiles = async (): Promise<Map<string, string>> => {
  const byName = new Map<string, string>();
  for (const family of FAMILIES) {
    const dir = join(SRC, "cli", family);
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts"))) {
      const module = (await import(join(dir, file))) as Record<string, unknown>;
      for (const value of Object.values(module)) {
        const def = value as Partial<CommandDef>;
        if (typeof def?.name === "string" && Array.isArray(def.errors) && typeof def.run === "function") {
          byName.set(def.name, join(dir, file));
        }
      }
    }
  }
  return byName;
};

const files = await definingFiles();
const commands = (await allCommands()).filter((c) => files.has(c.def.name));

describe("help error codes equal the codes the code can throw", () => {
  test("every binary of the covered families is checked", async () => {
    const covered = new Set(commands.map((c) => c.binary));
    for (const binary of ["register-agent-cli", "agent-identity-cli", "agent-task-cli", "agent-send-cli", "agents-list-cli"]) {
      expect(covered.has(binary), binary).toBe(true);
    }
  });

  test("every exemption names a checked command", () => {
    const names = new Set(commands.map((c) => c.def.name));
    for (const name of [...Object.keys(NO_STORE), ...Object.keys(UNREACHABLE)]) expect(names.has(name), name).toBe(true);
  });

  test("a command that never opens the store declares so, and on PostgreSQL never waits on the server's clock", () => {
    for (const { def } of commands.filter((c) => c.def.name in NO_STORE)) {
      expect(def.needs.deps === "none" || def.needs.usesStore?.({} as never) === false, def.name).toBe(true);
    }
  });

  test.each(commands.map((c) => [c.def.name, c.def] as const))("%s", (name, def) => {
    const scanned = thrownCodes(moduleGraph(files.get(name) as string));
    const unreachable = UNREACHABLE[name] ?? {};
    for (const code of Object.keys(unreachable))
      expect(scanned.has(code), `${name}: exemption ${code} is still thrown`).toBe(true);
    const environment = name in NO_STORE ? [] : STORE_ENVIRONMENT;
    const emitted = new Set([...ALWAYS, ...environment, ...[...scanned].filter((code) => !(code in unreachable))]);
    const listed = new Set<string>(def.errors);
    expect({
      thrown_but_not_in_help: [...emitted].filter((code) => !listed.has(code)).sort(),
      in_help_but_never_thrown: [...listed].filter((code) => !emitted.has(code)).sort(),
    }).toEqual({ thrown_but_not_in_help: [], in_help_but_never_thrown: [] });
  });
});
