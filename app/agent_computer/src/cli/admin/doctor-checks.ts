import type { DoctorCheck } from "./doctor-check.ts";
import { claudeCodeCheck, codexCheck } from "./doctor-client-checks.ts";
import { bwrapCheck, consoleTokenCheck, diskCheck, herdrCheck, pathCheck, tmuxCheck, uvCheck } from "./doctor-host-checks.ts";
import { settingsCheck } from "./doctor-settings-check.ts";
import { clockCheck, storeCheck, workerCheck } from "./doctor-store-checks.ts";

/** Every check doctor runs, in the order it reports them: adding a check is one line here. */
export const doctorChecks: readonly DoctorCheck[] = [
  settingsCheck,
  storeCheck,
  clockCheck,
  workerCheck,
  consoleTokenCheck,
  diskCheck,
  herdrCheck,
  tmuxCheck,
  bwrapCheck,
  uvCheck,
  claudeCodeCheck,
  codexCheck,
  pathCheck,
];
