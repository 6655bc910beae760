import { DATA_NOT_INSTRUCTIONS, type MeshDeps, iso } from "./deps.ts";
import { enterMesh } from "./live-session.ts";

export interface InboxInput {
  agentId: string;
  limit: number;
  token: string | undefined;
}

export interface InboxMessage {
  id: string;
  seq: number;
  from: string;
  kind: string;
  thread_id: string | null;
  created_at: string;
  body: string;
}

export interface InboxResult {
  agent_id: string;
  session_id: string;
  messages: InboxMessage[];
  count: number;
  has_more: boolean;
  note: string;
}

/** This session's unacknowledged messages, oldest first. Reading changes no message state. */
export const readInbox = (deps: MeshDeps, input: InboxInput): Promise<InboxResult> =>
  deps.store.write(async (tx) => {
    const { session } = await enterMesh(deps, tx, input.agentId, input.token, true);
    const entries = await tx.mesh.pending(session.id, input.limit + 1);
    const page = entries.slice(0, input.limit);
    return {
      agent_id: input.agentId,
      session_id: session.id,
      messages: page.map((e) => ({
        id: e.id,
        seq: e.seq,
        from: e.sender,
        kind: e.kind,
        thread_id: e.threadId,
        created_at: iso(e.createdAt),
        body: e.body,
      })),
      count: page.length,
      has_more: entries.length > input.limit,
      note: DATA_NOT_INSTRUCTIONS,
    };
  });
