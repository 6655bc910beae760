// Plans for the --help examples of the mesh, identity and task binaries (see plan.ts).
import { type CommandPlan, checkIn, EXAMPLE_IDS } from "./plan.ts";
import type { World } from "./world.ts";

const registerBuilder = (extra = "") =>
  `register-agent-cli --agent-id builder-1 --role builder --capabilities ts ${extra}`.trim();

const firstTask = async (world: World, agent: string): Promise<Record<string, string>> => {
  const { tasks } = await world.json<{ tasks: { id: string }[] }>(`agent-task-cli list --agent-id ${agent} --scope all --json`);
  return { [EXAMPLE_IDS.task]: tasks[0]?.id ?? "no-task" };
};

const newestMessage = async (world: World, agent = "builder-1"): Promise<Record<string, string>> => {
  const { messages } = await world.json<{ messages: { id: string }[] }>(`agent-inbox-cli --agent-id ${agent} --json`);
  return { [EXAMPLE_IDS.message]: messages.at(-1)?.id ?? "no-message" };
};

/** lead posts a task only builder-1 (caps ts) can take, so it is assigned to builder-1. */
const assignedTask = [
  checkIn("lead"),
  checkIn("builder-1", "--caps ts"),
  "agent-task-cli post --agent-id lead --title t --body b --require-cap ts",
];

/** builder-1 with one outbound webhook endpoint, and the real id its examples' placeholder stands for. */
const withEndpoint = [checkIn("builder-1"), "agent-webhook-cli add --agent-id builder-1 --url https://hooks.example.com/agent"];
const endpointIds = async (world: World): Promise<Record<string, string>> => {
  const { endpoints } = await world.json<{ endpoints: { id: string }[] }>("agent-webhook-cli list --agent-id builder-1 --json");
  return { [EXAMPLE_IDS.webhookEndpoint]: endpoints[0]?.id ?? "no-endpoint" };
};

export const MESH_PLANS: Record<string, CommandPlan> = {
  "agent-checkin-cli": {},
  "agent-checkout-cli": { given: [checkIn("builder-1")] },
  "agent-inbox-cli": {
    given: [checkIn("builder-1"), checkIn("reviewer-1")],
    // Mail waits, so the --wait example returns at once instead of blocking.
    before: { 4: ["agent-send-cli --from reviewer-1 --to builder-1 --body ping"] },
    outcomes: {
      2: {
        exit: 4,
        code: "WAKE_TOKEN_INVALID",
        why: "a wake token exists only once an auto-wake prompt carried it and works once; one never issued is refused",
      },
    },
  },
  "agent-ack-cli": {
    given: [checkIn("builder-1"), checkIn("reviewer-1"), "agent-send-cli --from reviewer-1 --to builder-1 --body one"],
    before: { 1: ["agent-send-cli --from reviewer-1 --to builder-1 --body two"] },
    varsBefore: { 1: newestMessage },
  },
  "agent-send-cli": {
    given: [
      checkIn("builder-1", "--role builder --capabilities ts"),
      checkIn("reviewer-1"),
      checkIn("release"),
      "git init -q . && echo a > f && git add f && git commit -qm a && echo b >> f",
    ],
    // The reply answers the message the first example sent to reviewer-1.
    varsBefore: { 2: (world) => newestMessage(world, "reviewer-1") },
  },
  "agent-sent-cli": { given: [checkIn("builder-1")] },
  "agent-contacts-cli (binary)": { given: [checkIn("builder-1")] },
  "agent-contacts-cli show": { given: [checkIn("builder-1")] },
  "agent-contacts-cli policy": { given: [checkIn("builder-1")] },
  "agent-contacts-cli allow": { given: [checkIn("builder-1")] },
  "agent-contacts-cli block": { given: [checkIn("builder-1")] },
  "agent-contacts-cli forget": {
    given: [checkIn("builder-1"), "agent-contacts-cli block --agent-id builder-1 --contact noisy-bot"],
  },
  "agent-channel-cli (binary)": { given: [checkIn("builder-1")] },
  "agent-channel-cli create": { given: [checkIn("builder-1")] },
  "agent-channel-cli join": {
    given: [checkIn("builder-1"), checkIn("lead"), "agent-channel-cli create --agent-id lead --channel release"],
  },
  "agent-channel-cli leave": { given: [checkIn("builder-1"), "agent-channel-cli create --agent-id builder-1 --channel release"] },
  "agent-channel-cli list": { given: [checkIn("builder-1"), "agent-channel-cli create --agent-id builder-1 --channel release"] },
  "agent-channel-cli post": {
    given: [
      checkIn("builder-1"),
      "git init -q . && git commit -q --allow-empty -m 'v1.2'",
      "agent-channel-cli create --agent-id builder-1 --channel release",
    ],
  },
  "agent-channel-cli read": { given: [checkIn("builder-1"), "agent-channel-cli create --agent-id builder-1 --channel release"] },
  "agent-webhook-cli (binary)": { given: [checkIn("builder-1")] },
  "agent-webhook-cli add": { given: [checkIn("builder-1")] },
  "agent-webhook-cli list": { given: withEndpoint },
  "agent-webhook-cli remove": { given: withEndpoint, vars: endpointIds },
  "agent-webhook-cli enable": { given: withEndpoint, vars: endpointIds },
  "agent-webhook-cli rotate-secret": { given: withEndpoint, vars: endpointIds },
  "agent-webhook-cli deliveries": { given: withEndpoint, vars: endpointIds },
  "agent-search-cli": {
    given: [
      checkIn("builder-1"),
      checkIn("reviewer-1"),
      "agent-send-cli --agent-id reviewer-1 --to builder-1 --body 'the migration rollback for pr-12 is ready'",
    ],
  },
  "agent-thread-cli": {
    given: [
      checkIn("builder-1"),
      checkIn("reviewer-1"),
      "agent-send-cli --agent-id builder-1 --to reviewer-1 --body 'PR 12 is ready' --thread pr-12",
    ],
    vars: (world) => newestMessage(world, "reviewer-1"),
  },
  "agents-list-cli": { given: [checkIn("builder-1")] },
  "agent-wake-cli": {
    notRun: { 2: "the light watcher in the foreground runs until SIGTERM; test/e2e/wake-watcher.test.ts runs and stops it" },
  },
  "register-agent-cli": {
    before: {
      // A takeover with expected null needs no open session: a revoked name has none.
      1: ["agent-identity-cli revoke-token --agent-id builder-1"],
      // The recovery token file the revoke-token example writes.
      2: [
        "agent-identity-cli revoke-token --agent-id builder-1 --issue-recovery --json | jq -r .recovery_token > builder-1.recovery",
      ],
    },
  },
  "agent-identity-cli (binary)": { given: [registerBuilder()] },
  "agent-identity-cli expand-capabilities": { given: [registerBuilder()] },
  "agent-identity-cli rotate-token": { given: [registerBuilder()] },
  "agent-identity-cli revoke-token": {
    given: [registerBuilder()],
    // The first example revoked the name; registering it again mints the token the second one revokes.
    before: { 1: [registerBuilder()] },
  },
  "agent-identity-cli unregister": {
    given: [registerBuilder()],
    // The first example only previews; the second reads the same token from a file of its own.
    before: { 1: ['cp "$AGENT_COMPUTER_HOME/tokens/builder-1.token" ./builder-1.token'] },
  },
  "agent-identity-cli show": { given: [registerBuilder()] },
  "agent-task-cli (binary)": {
    given: [checkIn("lead"), checkIn("builder-1", "--caps ts")],
    varsBefore: { 2: (world) => firstTask(world, "builder-1") },
  },
  "agent-task-cli post": { given: [checkIn("lead")] },
  "agent-task-cli list": { given: [checkIn("lead"), checkIn("builder-1")] },
  "agent-task-cli accept": { given: assignedTask, vars: (world) => firstTask(world, "builder-1") },
  "agent-task-cli complete": {
    given: [
      ...assignedTask,
      "agent-task-cli accept --agent-id builder-1 --task-id $(agent-task-cli list --agent-id builder-1 --json | jq -r '.tasks[0].id')",
    ],
    vars: (world) => firstTask(world, "builder-1"),
  },
  "agent-task-cli reject": { given: assignedTask, vars: (world) => firstTask(world, "builder-1") },
  "agent-task-cli cancel": {
    given: [checkIn("builder-1"), "agent-task-cli post --agent-id builder-1 --title t --body b --require-cap nobody-has-it"],
    vars: (world) => firstTask(world, "builder-1"),
  },
};
