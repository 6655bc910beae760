import type { BinaryDef } from "../kernel/command.ts";
import { BINDING_ENV } from "./shared.ts";

/** The coordinator's lifecycle CLI: leases, reviewers, writers, cleanup, waits; each subcommand is its own contract. */
const binary: BinaryDef = {
  name: "herdr-lease-cli",
  summary:
    "controller lease and takeover, leased reviewer/writer agents in Herdr, writer verify, cleanup (adopt, sweep, reconcile), inventory, wait-any",
  description:
    "Lifecycle side of Herdr coordination (requests and results are herdr-agent-control --help). A coordinator agent " +
    'running inside Herdr as a NAMED agent (started by hand? `herdr agent rename "$HERDR_PANE_ID" <name>` first), with ' +
    "AGENT_CONTROL_CONTROLLER_ID set by its launcher, acquires the controller lease, starts " +
    "reviewers and writers under leases only it can close, and releases them after durable checkpoints. No command takes " +
    "a shell command, sends raw keys, or closes anything but the one pane of a lease it holds. Credentials (lease id + " +
    "fence) live in a 0600 file of this host and never appear in argv or output; the shared store keeps only the fence's " +
    "SHA-256, controller exclusivity and writer claims (branch, worktree, scopes). Pane ids, process identities and " +
    "receipts stay on this host. Git is only ever read. Same-user processes are trusted not to forge the state files: this " +
    "is a fail-safe for cooperating agents, not isolation.",
  subcommands: {
    "controller acquire": () => import("./lease-controller-acquire.ts").then((m) => m.default),
    "controller resume": () => import("./lease-controller-resume.ts").then((m) => m.default),
    "controller renew": () => import("./lease-controller-renew.ts").then((m) => m.default),
    "controller release": () => import("./lease-controller-release.ts").then((m) => m.default),
    "controller takeover": () => import("./lease-controller-takeover.ts").then((m) => m.default),
    "reviewer start": () => import("./lease-reviewer-start.ts").then((m) => m.default),
    "reviewer close": () => import("./lease-reviewer-close.ts").then((m) => m.default),
    "reviewer sweep": () => import("./lease-reviewer-sweep.ts").then((m) => m.default),
    "writer start": () => import("./lease-writer-start.ts").then((m) => m.default),
    "writer verify": () => import("./lease-writer-verify.ts").then((m) => m.default),
    "writer release": () => import("./lease-writer-release.ts").then((m) => m.default),
    adopt: () => import("./lease-adopt.ts").then((m) => m.default),
    "adopted close": () => import("./lease-adopted-close.ts").then((m) => m.default),
    inventory: () => import("./lease-inventory.ts").then((m) => m.default),
    reconcile: () => import("./lease-reconcile.ts").then((m) => m.default),
    "wait-any": () => import("./lease-wait-any.ts").then((m) => m.default),
    "bridge-status": () => import("./lease-bridge-status.ts").then((m) => m.default),
  },
  env: BINDING_ENV,
  examples: [
    "herdr-lease-cli controller acquire --authority-ref acme/api#7 --authority-sha256 $(sha256sum < issue7.md | cut -c1-64)",
    "herdr-lease-cli reviewer start --name rev-pr42 --kind claude --cwd /srv/wt/pr42 --purpose 'review PR 42' -- --model opus",
    "herdr-lease-cli wait-any --worker rev-pr42 --after-seq rev-pr42=118",
    "herdr-lease-cli bridge-status --json",
  ],
};

export default binary;
