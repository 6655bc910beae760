// What the console shows: every owner's jobs with their recent runs, and every trigger. No token is asked:
// the console is read-only and served on the worker's loopback port to whoever runs that host, who can
// read the store anyway. Owners' WorkerEnv values are cut out of run output and errors here, before
// anything is rendered, so a script that prints its API key does not put it on a web page.
import type { EnvEntry, StoreTx } from "../../store/port.ts";
import type { Deps } from "../deps.ts";
import { type JobView, jobView, type RunView, runView, type TriggerView, triggerView } from "./views.ts";

/** Shorter values are too likely to occur by chance ("1", "true") to be worth cutting out. */
export const MIN_REDACTED_VALUE_CHARS = 8;

export interface JobWithRuns {
  job: JobView;
  runs: RunView[];
}

export type OwnedTriggerView = TriggerView & { owner: string };

/** Replaces every occurrence of a secret value by `[WorkerEnv KEY]`, longest values first. */
export const redactSecrets = (text: string | null, secrets: readonly EnvEntry[]): string | null => {
  if (text === null) return null;
  let out = text;
  const values = secrets
    .filter((s) => s.value.length >= MIN_REDACTED_VALUE_CHARS)
    .sort((a, b) => b.value.length - a.value.length);
  for (const secret of values) out = out.replaceAll(secret.value, `[WorkerEnv ${secret.key}]`);
  return out;
};

const envOf = async (tx: StoreTx, cache: Map<string, EnvEntry[]>, owner: string): Promise<EnvEntry[]> => {
  const cached = cache.get(owner);
  if (cached) return cached;
  const entries = await tx.automation.listEnv(owner);
  cache.set(owner, entries);
  return entries;
};

/** The newest jobs of every owner, each with its newest runs (output and errors redacted). */
export const jobsOverview = (deps: Deps, input: { jobs: number; runsPerJob: number }): Promise<JobWithRuns[]> =>
  deps.store.read(async (tx) => {
    const envs = new Map<string, EnvEntry[]>();
    const result: JobWithRuns[] = [];
    for (const job of await tx.automation.listJobs(null, input.jobs)) {
      const secrets = await envOf(tx, envs, job.owner);
      const runs = (await tx.automation.runsOfJob(job.id, input.runsPerJob)).map((run) => ({
        ...runView(run),
        error: redactSecrets(run.error, secrets),
        stdout_tail: redactSecrets(run.stdoutTail, secrets),
        stderr_tail: redactSecrets(run.stderrTail, secrets),
      }));
      result.push({ job: jobView(job), runs });
    }
    return result;
  });

/** Every owner's triggers, newest first (the webhook secret is never part of a view). */
export const triggersOverview = (
  deps: Deps,
  input: { limit: number; includeEnded: boolean; baseUrl: string },
): Promise<OwnedTriggerView[]> =>
  deps.store.read(async (tx) =>
    (await tx.automation.listTriggers(null, input.includeEnded, input.limit)).map((t) => ({
      ...triggerView(t, input.baseUrl),
      owner: t.owner,
    })),
  );
