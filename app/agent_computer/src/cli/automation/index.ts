import { type BinaryLoader, singleCommand } from "../kernel/binary.ts";

/** Automation jobs, their triggers and the WorkerEnv. */
export const automationBinaries: Record<string, BinaryLoader> = {
  "create-automation-job-cli": singleCommand(() => import("./create-automation-job-cli.ts")),
  "list-automation-jobs-cli": singleCommand(() => import("./list-automation-jobs-cli.ts")),
  "show-automation-job-cli": singleCommand(() => import("./show-automation-job-cli.ts")),
  "cancel-automation-job-cli": singleCommand(() => import("./cancel-automation-job-cli.ts")),
  "run-automation-job-cli": singleCommand(() => import("./run-automation-job-cli.ts")),
  "create-checkback-cli": singleCommand(() => import("./create-checkback-cli.ts")),
  "create-cron-schedule-cli": singleCommand(() => import("./create-cron-schedule-cli.ts")),
  "create-webhook-cli": singleCommand(() => import("./create-webhook-cli.ts")),
  "list-triggers-cli": singleCommand(() => import("./list-triggers-cli.ts")),
  "cancel-trigger-cli": singleCommand(() => import("./cancel-trigger-cli.ts")),
  "worker-env-cli": () => import("./worker-env-cli.ts").then((m) => m.default),
};
