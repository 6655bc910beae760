// The console's forms, checked before anything is written: each field by the rule its command-line flag follows
// (agent names, channel names, message ids, a body of at most 64 KiB without NUL); an error names the field.
import * as z from "zod/mini";
import { agentIdSchema } from "../domain/identity/names.ts";

export const MAX_BODY_BYTES = 65_536;
export const MAX_RECIPIENTS = 50;

const body = z.string().check(
  z.refine((text) => text.trim().length > 0, "write something to send"),
  z.refine((text) => Buffer.byteLength(text, "utf8") <= MAX_BODY_BYTES, `at most ${MAX_BODY_BYTES} bytes`),
  z.refine((text) => !text.includes("\0"), "must not contain a NUL character"),
);

const messageId = z.string().check(z.regex(/^msg_[0-9a-f]{32}$/, "must be a message id (msg_…)"));

const recipients = z.pipe(
  z.string().check(z.refine((text) => text.trim().length > 0, "name at least one agent")),
  z.transform((text) => [...new Set(text.split(/[\s,]+/).filter((name) => name.length > 0))]),
);

export const composeSchema = z.object({
  to: z.optional(recipients),
  reply_to: z.optional(messageId),
  body,
});

export const channelPostSchema = z.object({
  channel: z.string().check(z.regex(/^[a-z0-9][a-z0-9_.-]{0,63}$/, "must be a channel's name (a-z 0-9 _ . -)")),
  body,
});

export const markReadSchema = z.object({ message_id: messageId });

export type ComposeForm = z.output<typeof composeSchema>;
export type ChannelPostForm = z.output<typeof channelPostSchema>;

/** Form fields as strings; an empty optional field counts as absent. Browsers send CRLF line ends: kept as LF. */
export const fieldsOf = (form: URLSearchParams, names: readonly string[]): Record<string, string> => {
  const fields: Record<string, string> = {};
  for (const name of names) {
    const value = form.get(name);
    if (typeof value === "string" && value.length > 0) fields[name] = value.replace(/\r\n/g, "\n");
  }
  return fields;
};

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** The first problem, named by its field. Recipients are checked one by one, so the bad name is the one named. */
export const parseCompose = (fields: Record<string, string>): Parsed<ComposeForm> => {
  const parsed = parseWith(composeSchema, fields);
  if (!parsed.ok) return parsed;
  const { to, reply_to } = parsed.value;
  if ((to === undefined) === (reply_to === undefined))
    return { ok: false, error: "to: name the recipients, or reply to a message" };
  for (const name of to ?? []) {
    if (!z.safeParse(agentIdSchema, name).success)
      return { ok: false, error: `to: ${JSON.stringify(name)} is not an agent name` };
  }
  if ((to?.length ?? 0) > MAX_RECIPIENTS) return { ok: false, error: `to: at most ${MAX_RECIPIENTS} recipients` };
  return parsed;
};

export const parseChannelPost = (fields: Record<string, string>): Parsed<ChannelPostForm> => parseWith(channelPostSchema, fields);

export const parseMessageId = (fields: Record<string, string>): Parsed<{ message_id: string }> =>
  parseWith(markReadSchema, fields);

const parseWith = <T>(schema: z.ZodMiniType<T>, fields: Record<string, string>): Parsed<T> => {
  const result = z.safeParse(schema, fields);
  if (result.success) return { ok: true, value: result.data };
  const issue = result.error.issues[0];
  const field = issue?.path.join(".") || "form";
  return { ok: false, error: `${field}: ${issue?.code === "invalid_type" ? "is required" : (issue?.message ?? "is invalid")}` };
};
