// The automation SDK for job scripts: import { context, emitEvent } from "agent-computer/automation".
// Both work only inside a run started by agent-computer-worker; run by hand (`bun main.ts`) they throw, so
// the setup and non-SDK branches can be tried without a worker. emitEvent calls back to the worker that
// started this attempt over loopback HTTP with the attempt's fence token: the script never holds store
// credentials, and a stale attempt is refused by the store, not trusted to know it is stale.
import { readFileSync } from "node:fs";
import type { AttemptFile } from "../domain/automation/attempt-file.ts";
import type { CloudEvent } from "../domain/automation/cloudevent.ts";
import { jsonNestedDeeperThan, MAX_JSON_DEPTH } from "../json-depth.ts";

export type { CloudEvent };

export interface AutomationContext {
  /** The CloudEvents 1.0 envelope of the trigger that started this run (the same JSON a direct wake appends). */
  event: CloudEvent;
  run: { id: string; attempt: number; automation_job_id: string };
}

export interface EmitReceipt {
  /** The id of the automation_job.emitted message in the owner's session. */
  message_id: string;
  seq: number;
  /** false when the owner has no live check-in: the event is stored but no session will show it. */
  delivered: boolean;
}

/** Thrown by context() and emitEvent() outside a platform run. */
export class NotInAutomationRunError extends Error {
  constructor(what: string) {
    super(
      `${what} exists only inside an automation run started by agent-computer-worker; run by hand, keep SDK calls ` +
        "out of the path you are testing, then register the job and send a test trigger (run-automation-job-cli --help)",
    );
    this.name = "NotInAutomationRunError";
  }
}

/** Thrown when this attempt no longer holds its run (a newer attempt took over): stop, nothing was emitted. */
export class AttemptFencedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AttemptFencedError";
  }
}

export const MAX_EMIT_BYTES = 65_536;

let cached: AttemptFile | undefined;

const attempt = (what: string): AttemptFile => {
  if (cached) return cached;
  const file = process.env.AGENT_COMPUTER_ATTEMPT_FILE;
  if (!file) throw new NotInAutomationRunError(what);
  try {
    cached = JSON.parse(readFileSync(file, "utf8")) as AttemptFile;
  } catch {
    throw new NotInAutomationRunError(`${what} (the attempt file ${file} is gone: this attempt has ended)`);
  }
  return cached;
};

export const context = (): AutomationContext => {
  const a = attempt("context()");
  return { event: a.event as CloudEvent, run: { id: a.run_id, attempt: a.attempt, automation_job_id: a.automation_job_id } };
};

/**
 * Appends a durable automation_job.emitted event (data = payload) to the owner's session. Resolves only after
 * it is persisted; never falls back to stdout. Rejects with AttemptFencedError when the attempt is stale.
 */
export const emitEvent = async (payload: unknown): Promise<EmitReceipt> => {
  const a = attempt("emitEvent()");
  const body = JSON.stringify({ run_id: a.run_id, attempt: a.attempt, payload });
  if (payload === undefined || body === undefined) throw new TypeError("emitEvent(payload): payload must be JSON-serialisable");
  if (Buffer.byteLength(body, "utf8") > MAX_EMIT_BYTES)
    throw new RangeError(`emitEvent(payload): at most ${MAX_EMIT_BYTES} bytes of JSON`);
  if (jsonNestedDeeperThan(body, MAX_JSON_DEPTH + 1))
    throw new RangeError(`emitEvent(payload): arrays and objects nested at most ${MAX_JSON_DEPTH} levels deep`);
  for (let tries = 1; ; tries++) {
    const response = await fetch(a.emit_url, {
      method: "POST",
      headers: { authorization: `Bearer ${a.lease_token}`, "content-type": "application/json" },
      body,
    });
    const answer = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (response.status === 200) return answer as unknown as EmitReceipt;
    if (response.status === 409) throw new AttemptFencedError(String(answer.message ?? "this attempt was fenced"));
    // 503: the store was unavailable and nothing was written, so a retry cannot duplicate the event.
    if (response.status === 503 && tries < 5) {
      await Bun.sleep(200 * 2 ** tries);
      continue;
    }
    throw new Error(`emitEvent failed (HTTP ${response.status}): ${String(answer.message ?? "no detail")}`);
  }
};
