// What the worker says once it serves. As JSON: one "worker started" entry with every fact as a field. As text, for
// a person at a terminal: the console link first (the thing they came for), then what it serves and how to stop it.
import { consoleStartFields } from "./console.ts";
import type { Logger } from "./log.ts";

export interface StartFacts {
  workerId: string;
  url: string;
  consoleToken: string;
  stderrIsTerminal: boolean;
  store: "sqlite" | "postgres";
  /** On PostgreSQL: the server's clock minus this host's (server-clock-watch.ts). */
  clockOffsetMs: number | null;
  once: boolean;
  concurrency: number;
  skillsDir: string;
}

export const announceStart = (log: Logger, facts: StartFacts): void => {
  const consoleFields = consoleStartFields(facts.url, facts.consoleToken, facts.stderrIsTerminal);
  const mode = facts.once ? "once" : "daemon";
  if (log.format === "json") {
    log.log("info", "worker started", {
      worker_id: facts.workerId,
      ...consoleFields,
      store: facts.store,
      ...(facts.clockOffsetMs === null ? {} : { clock_offset_ms: facts.clockOffsetMs }),
      mode,
      concurrency: facts.concurrency,
      skills_dir: facts.skillsDir,
    });
    return;
  }
  const link = consoleFields.console_link ?? `${consoleFields.console_url} (sign-in link: ${consoleFields.console_link_command})`;
  const offset = facts.clockOffsetMs;
  const clock =
    offset === null
      ? ""
      : `; times on the PostgreSQL server's clock (this host's is ${Math.abs(offset)} ms ${offset >= 0 ? "behind" : "ahead"})`;
  log.plain([
    `Console: ${link}`,
    `agent-computer-worker ${facts.workerId} serves ${facts.url}: webhooks (POST /hooks/<endpoint-id>), scripts' emitEvent calls, the console`,
    `Runs checkbacks, cron ticks and automation jobs (${facts.concurrency} at a time, ${mode}), sends outbound webhooks, wakes agents`,
    `Store: ${facts.store}${clock}; Skills: ${facts.skillsDir}`,
    facts.once ? "Exits when nothing is left to run." : "Stop: Ctrl-C (running attempts finish; a second Ctrl-C kills them).",
  ]);
};
