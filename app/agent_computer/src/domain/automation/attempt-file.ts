// The contract between the worker and the automation SDK: the 0600 file an attempt reads its identity from.

/** What the SDK reads (0600 file): the attempt's identity, its fence token, where to emit and the event. */
export interface AttemptFile {
  run_id: string;
  attempt: number;
  automation_job_id: string;
  emit_url: string;
  lease_token: string;
  event: unknown;
}
