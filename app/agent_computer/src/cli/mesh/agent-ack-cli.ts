import * as z from "zod/mini";
import { agentIdSchema } from "../../domain/identity/names.ts";
import { type AckResult, ackMessages } from "../../domain/mesh/ack.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { authenticatedErrorsWith, ownCredential, tokenFileSchema } from "../kernel/credential.ts";

export const ackOptionsSchema = z
  .object({
    agentId: agentIdSchema,
    messageId: z
      .optional(
        z
          .array(z.string().check(z.regex(/^msg_[0-9a-f]{32}$/, "must be a message id (msg_…)")))
          .check(z.minLength(1), z.maxLength(100)),
      )
      .check(z.describe("message ids to acknowledge")),
    upToSeq: z
      .optional(z.coerce.number().check(z.int(), z.minimum(1)))
      .check(z.describe("acknowledge every pending message of this session with seq <= N")),
    tokenFile: tokenFileSchema,
  })
  .check(
    z.superRefine((o, ctx) => {
      if ((o.messageId === undefined) === (o.upToSeq === undefined)) {
        ctx.addIssue({ code: "custom", path: ["messageId"], message: "give exactly one of --message-id or --up-to-seq" });
      }
    }),
  );

export type AckOptions = z.output<typeof ackOptionsSchema>;

/** --up-to-seq may acknowledge thousands at once: the answer names the first of them and counts them all. */
const ACKED_SHOWN = 100;
const ACKED_SHOWN_AS_TEXT = 20;

type AckOutput = AckResult & { acked_count: number };

const runAck = async (options: AckOptions, deps: DepsOf<"store">): Promise<AckOutput> => {
  const token = deps.credential?.token;
  const r =
    options.upToSeq !== undefined
      ? await ackMessages(deps, { agentId: options.agentId, token, upToSeq: options.upToSeq })
      : await ackMessages(deps, { agentId: options.agentId, token, messageIds: options.messageId ?? [] });
  return { ...r, acked: r.acked.slice(0, ACKED_SHOWN), acked_count: r.acked.length };
};

const render = (r: AckOutput): string =>
  [
    `${r.agent_id}: acknowledged ${r.acked_count}`,
    ...r.acked.slice(0, ACKED_SHOWN_AS_TEXT).map((id) => `  ${id}`),
    ...(r.acked_count > ACKED_SHOWN_AS_TEXT ? [`  … and ${r.acked_count - ACKED_SHOWN_AS_TEXT} more`] : []),
    ...(r.already_closed.length ? [`already acknowledged or closed: ${r.already_closed.join(", ")}`] : []),
  ].join("\n");

export default defineCommand({
  name: "agent-ack-cli",
  summary: 'acknowledge Agent Mesh messages ("I read it"), so they stop coming back from agent-inbox-cli',
  description:
    'Acknowledging means "I read it": not agreement, not action. Give message ids (--message-id, repeatable) or ' +
    "--up-to-seq N for everything pending in this session up to sequence N. Idempotent: acknowledging again is not an error " +
    "(those ids are listed as already_closed). If any id is not one of this agent's messages the whole call is rejected " +
    "with MESSAGE_NOT_FOUND and nothing is acknowledged. Needs a live check-in; renews presence. The sender sees the " +
    "acknowledgement in agent-sent-cli.",
  schema: ackOptionsSchema,
  writes: "the acknowledged deliveries (state acked, acked_at) and your presence renewal.",
  output: '{"agent_id","acked":["msg_…"](the first 100),"acked_count","already_closed":["msg_…"]}',
  errors: authenticatedErrorsWith("NOT_CHECKED_IN", "MESSAGE_NOT_FOUND"),
  env: ["AGENT_COMPUTER_HOME", "AGENT_COMPUTER_DATABASE_URL", "RELAY_AGENT_TOKEN"],
  examples: [
    "agent-ack-cli --agent-id builder-1 --up-to-seq 42",
    "agent-ack-cli --agent-id builder-1 --message-id msg_0193a1b2c3d4e5f60718293a4b5c6d7e --json",
  ],
  needs: { deps: "store", credential: ownCredential },
  run: runAck,
  render,
});
