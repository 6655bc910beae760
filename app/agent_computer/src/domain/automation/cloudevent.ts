import { JsonTooDeep, parseJson } from "../../json-depth.ts";
import { iso } from "../deps.ts";
// The CloudEvents 1.0 envelope every trigger produces: the same JSON is appended to the owner's session
// when a trigger has no job (a direct wake), and handed to the script as context().event when it has one.

export interface CloudEvent {
  specversion: "1.0";
  id: string;
  source: string;
  type: string;
  time: string;
  datacontenttype: string;
  subject?: string;
  data: unknown;
  /** Extension attributes (lowercase letters and digits only), e.g. githubevent. */
  [extension: string]: unknown;
}

export const EVENT_TYPES = {
  checkback: "checkback.due",
  cron: "cron.tick",
  webhook: "webhook.delivery",
  manual: "automation_job.test",
  emitted: "automation_job.emitted",
  failed: "automation_job.failed",
} as const;

export const triggerSource = (triggerId: string): string => `/agent-computer/triggers/${triggerId}`;
export const jobSource = (jobId: string): string => `/agent-computer/automation-jobs/${jobId}`;

export const jsonEvent = (fields: {
  id: string;
  source: string;
  type: string;
  time: number;
  subject?: string;
  data: unknown;
  extensions?: Record<string, string>;
}): CloudEvent => ({
  specversion: "1.0",
  id: fields.id,
  source: fields.source,
  type: fields.type,
  time: iso(fields.time),
  datacontenttype: "application/json",
  ...(fields.subject ? { subject: fields.subject } : {}),
  ...fields.extensions,
  data: fields.data,
});

/**
 * A webhook body becomes JSON data when it parses as JSON, otherwise text with the sender's content type. Throws
 * JsonTooDeep for JSON nested deeper than MAX_JSON_DEPTH.
 */
export const webhookEvent = (fields: {
  triggerId: string;
  deliveryId: string;
  time: number;
  body: string;
  contentType: string | null;
  extensions?: Record<string, string>;
}): CloudEvent => {
  let data: unknown = fields.body;
  let contentType = fields.contentType?.split(";")[0]?.trim() || "text/plain";
  try {
    data = parseJson(fields.body);
    contentType = "application/json";
  } catch (error) {
    // Not JSON: kept verbatim as text. JSON nested too deep is refused, not kept: it would be JSON to its sender.
    if (error instanceof JsonTooDeep) throw error;
  }
  return {
    ...jsonEvent({
      id: fields.deliveryId,
      source: triggerSource(fields.triggerId),
      type: EVENT_TYPES.webhook,
      time: fields.time,
      data,
      extensions: fields.extensions,
    }),
    datacontenttype: contentType,
  };
};
