// Sends from "alice" to "bob" as fast as one process can, 32 at a time (so they are group-committed in batches),
// and prints each message id on stdout once its send has returned: what the process has reported as sent. The
// group-commit suite kills it mid-batch and checks every printed id against the store.
import { newId } from "../../app/agent_computer/src/domain/ids.ts";
import { sendMessage } from "../../app/agent_computer/src/domain/mesh/send.ts";
import { openStore } from "../../app/agent_computer/src/store/open.ts";

const store = await openStore(process.env);
const deps = { store, now: () => Date.now(), host: "batch-sender", newId };
let i = 0;
await Promise.all(
  Array.from({ length: 32 }, async () => {
    for (;;) {
      const result = await sendMessage(deps, {
        from: "alice",
        token: process.env.SENDER_TOKEN,
        recipients: { kind: "to", agentIds: ["bob"] },
        body: `killed mid-batch ${i++}`,
      });
      process.stdout.write(`${result.id}\n`);
    }
  }),
);
