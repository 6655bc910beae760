import * as z from "zod/mini";
import { adoptAgent } from "../../domain/herdr/adopt.ts";
import { leaseView } from "../../domain/herdr/inventory.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { oneLine } from "../kernel/one-line.ts";
import { LEASE_OUTPUT } from "./lease-docs.ts";
import { agentNameSchema, authorityErrorsWith, BINDING_ENV, kindSchema, renderLease, seqSchema, sha256Schema } from "./shared.ts";

const paneIdSchema = z.string().check(z.regex(/^[A-Za-z0-9]+:[A-Za-z0-9]+$/, "must be a Herdr pane id (w1:p2)"));

export const adoptOptionsSchema = z.object({
  target: z
    .string()
    .check(
      z.regex(/^[A-Za-z0-9][A-Za-z0-9:_-]{0,63}$/, "must be an agent name or pane id"),
      z.describe("the agent's name or pane id"),
    ),
  expectedPaneId: paneIdSchema.check(z.describe("the pane it must be in")),
  expectedName: agentNameSchema.check(z.describe("the name it must have")),
  expectedKind: kindSchema.check(z.describe("the kind it must be")),
  expectedCwd: z
    .string()
    .check(
      z.minLength(1),
      z.describe("the working directory it must have (compared with Herdr's after resolving symlinks on both sides)"),
    ),
  expectedSeq: seqSchema.check(z.describe("the state_change_seq it must be at (idle or done)")),
  authorityRef: oneLine(500, { min: 1, describe: "durable reference to what authorises the cleanup" }),
  authoritySha256: sha256Schema.check(z.describe("SHA-256 of that authority")),
  purpose: oneLine(200, { min: 1, describe: "one line: why it is adopted" }),
  protectedPane: z
    ._default(z.array(paneIdSchema).check(z.maxLength(50)), [])
    .check(z.describe("panes that must never be adopted (the controller's own always is)")),
});
export type AdoptOptions = z.output<typeof adoptOptionsSchema>;

const runAdopt = async ({ protectedPane, ...options }: AdoptOptions, deps: DepsOf<"herdr">) =>
  leaseView(await adoptAgent(deps, { ...options, protectedPanes: protectedPane }));

export default defineCommand({
  name: "herdr-lease-cli adopt",
  summary: "take a cleanup-only lease on an agent started outside these tools",
  description:
    "Needs controller authority. The agent must be exactly the one described (pane, name, kind, cwd), idle or done at " +
    "--expected-seq, not the controller's own pane nor a --protected-pane, and not held by any lease on this host. The " +
    "lease grants neither Git ownership nor requests (ask refuses adopted agents): its only use is `adopted close`.",
  schema: adoptOptionsSchema,
  flags: { target: { placeholder: "<name-or-pane>" } },
  writes: "an adopted lease in this host's state dir.",
  output: LEASE_OUTPUT,
  errors: authorityErrorsWith("CONFLICT", "IDENTITY_CHANGED", "AGENT_NOT_SETTLED", "CURSOR_MOVED"),
  env: BINDING_ENV,
  examples: [
    "herdr-lease-cli adopt --target old-rev --expected-pane-id w1:p4 --expected-name old-rev --expected-kind claude " +
      "--expected-cwd /srv/wt/pr40 --expected-seq 77 --authority-ref acme/api#5 --authority-sha256 $(sha256sum < issue5.md | cut -c1-64) --purpose 'stale reviewer'",
  ],
  needs: { deps: "herdr" },
  run: runAdopt,
  render: renderLease,
});
