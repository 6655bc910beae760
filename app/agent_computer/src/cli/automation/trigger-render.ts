// One line per trigger, shared by the trigger commands' human output.
import type { TriggerView } from "../../domain/automation/views.ts";
import { neutralizeLine } from "../kernel/output.ts";

export const triggerLine = (t: TriggerView): string => {
  const target = t.automation_job_id ? `runs ${t.automation_job_id}` : "wakes you (inbox event)";
  const label = t.label ? ` "${neutralizeLine(t.label)}"` : "";
  const detail =
    t.kind === "checkback"
      ? `due ${t.due_at ?? "-"}`
      : t.kind === "cron"
        ? `${t.cron} (${t.tz}) next ${t.next_fire_at ?? "-"}${t.skipped_count ? ` · ${t.skipped_count} skipped tick(s)` : ""}`
        : `${t.provider} ${t.url}`;
  return `${t.id} [${t.state}] ${t.kind}${label} ${detail} · ${target} · fired ${t.fire_count}x`;
};
