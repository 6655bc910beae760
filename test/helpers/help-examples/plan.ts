// How one command's --help examples are run (test/e2e/help-examples.test.ts): what exists first, which example ids
// stand for which real ones, and the documented exceptions. Examples are addressed by their index in the help.
import type { World } from "./world.ts";

export interface CommandPlan {
  /** Start the Herdr double and run inside a coordinator's pane. */
  herdr?: boolean;
  /** Run an agent-computer-worker on the same store. */
  worker?: boolean;
  /** Prerequisites, run in order before the first example; each must exit 0. */
  given?: string[];
  /** Prerequisites that are not shell lines (scripting the Herdr double), run after `given`. */
  setup?: (world: World) => Promise<void>;
  /** Example literal → the real value made by the prerequisites. */
  vars?: (world: World) => Promise<Record<string, string>>;
  /** Prerequisites of one example, run just before it. */
  before?: Record<number, string[]>;
  /** Replacements that exist only once an earlier example ran. */
  varsBefore?: Record<number, (world: World) => Promise<Record<string, string>>>;
  /** An example meant to fail here, with the error it gives and why that is the right answer. */
  outcomes?: Record<number, { exit: number; code: string; why: string }>;
  /** An example that is not run, and why it cannot be. */
  notRun?: Record<number, string>;
}

/** The ids the examples use; each is replaced by a real id of the same kind. */
export const EXAMPLE_IDS = {
  job: "job_0193a1b2c3d4e5f60718293a4b5c6d7e",
  run: "run_0193a1b2c3d4e5f60718293a4b5c6d7f",
  task: "task_0193a1b2c3d4e5f60718293a4b5c6d7e",
  message: "msg_0193a1b2c3d4e5f60718293a4b5c6d7e",
  cron: "cron_0193a1b2c3d4e5f60718293a4b5c6d7e",
  webhookEndpoint: "whk_0193a1b2c3d4e5f60718293a4b5c6d7e",
} as const;

export const checkIn = (agent: string, extra = "") => `agent-checkin-cli --agent-id ${agent} --confirm ${extra}`.trim();
