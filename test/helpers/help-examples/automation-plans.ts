// Plans for the --help examples of the automation binaries and the worker (see plan.ts).
import { type CommandPlan, checkIn, EXAMPLE_IDS } from "./plan.ts";
import type { World } from "./world.ts";

const owner = checkIn("builder-1");
const jobDirs = `mkdir -p ~/jobs/pr-digest nightly && echo 'console.log("ok")' > ~/jobs/pr-digest/main.ts && cp ~/jobs/pr-digest/main.ts nightly/`;
const withJob = [owner, jobDirs, "create-automation-job-cli --agent-id builder-1 --dir ./nightly --label nightly"];

/** The job (and its newest run, if any) of builder-1 in place of the example ids. */
const jobIds = async (world: World): Promise<Record<string, string>> => {
  const { jobs } = await world.json<{ jobs: { id: string }[] }>("list-automation-jobs-cli --agent-id builder-1 --json");
  const job = jobs[0]?.id ?? "no-job";
  const { runs } = await world.json<{ runs: { id: string }[] }>(
    `show-automation-job-cli --agent-id builder-1 --job-id ${job} --json`,
  );
  return { [EXAMPLE_IDS.job]: job, [EXAMPLE_IDS.run]: runs[0]?.id ?? "no-run" };
};

const triggerIds = async (world: World): Promise<Record<string, string>> => {
  const { triggers } = await world.json<{ triggers: { id: string }[] }>("list-triggers-cli --agent-id builder-1 --json");
  return { [EXAMPLE_IDS.cron]: triggers[0]?.id ?? "no-trigger" };
};

export const AUTOMATION_PLANS: Record<string, CommandPlan> = {
  "create-automation-job-cli": { given: [owner, jobDirs] },
  "list-automation-jobs-cli": { given: [owner] },
  "show-automation-job-cli": {
    given: [
      ...withJob,
      `run-automation-job-cli --agent-id builder-1 --job-id $(list-automation-jobs-cli --agent-id builder-1 --json | jq -r '.jobs[0].id')`,
    ],
    vars: jobIds,
  },
  "cancel-automation-job-cli": { given: withJob, vars: jobIds },
  // --wait-seconds 60 waits for a worker to finish the run.
  "run-automation-job-cli": { worker: true, given: withJob, vars: jobIds },
  "create-checkback-cli": { given: withJob, vars: jobIds },
  "create-cron-schedule-cli": { given: withJob, vars: jobIds },
  "create-webhook-cli": { given: withJob, vars: jobIds },
  "list-triggers-cli": { given: [owner] },
  "cancel-trigger-cli": {
    given: [owner, "create-cron-schedule-cli --agent-id builder-1 --cron '0 9 * * *' --label standup"],
    vars: triggerIds,
  },
  "worker-env-cli (binary)": { given: [owner] },
  "worker-env-cli set": { given: [owner, "printf 'ghp_example' > ~/.gh-token", "printf 'REGION=eu\\n' > job.env"] },
  "worker-env-cli list": { given: [owner] },
  "worker-env-cli unset": { given: [owner, "echo GITHUB_TOKEN=x | worker-env-cli set --agent-id builder-1 --file -"] },
  "agent-computer-worker": {
    notRun: {
      0: "a daemon on the fixed port 8787 until SIGTERM; test/e2e/automation-jobs.test.ts runs the daemon on a free port",
      2: "a daemon on a PostgreSQL host named db; the automation suites run workers against the test PostgreSQL",
    },
  },
};
