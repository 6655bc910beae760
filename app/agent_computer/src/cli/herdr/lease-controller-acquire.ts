import { acquireController, type ControllerView } from "../../domain/herdr/controller-lease.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import {
  type AuthorityOptions,
  authorityOptionsSchema,
  bindingErrors,
  CONTROLLER_OUTPUT,
  renderController,
} from "./lease-controller-options.ts";
import { BINDING_ENV } from "./shared.ts";

const runAcquire = async (options: AuthorityOptions, deps: DepsOf<"herdr">): Promise<ControllerView> =>
  acquireController(deps, options);

export default defineCommand({
  name: "herdr-lease-cli controller acquire",
  summary: "take the controller lease named by AGENT_CONTROL_CONTROLLER_ID for this pane's agent",
  description:
    "The coordinator must run inside Herdr as a named agent (idle or working) in pane HERDR_PANE_ID. An agent started " +
    'by hand has no Herdr name: give it one first with `herdr agent rename "$HERDR_PANE_ID" <name>` (or start it with ' +
    "`herdr agent start <name> --kind KIND --pane ID`). Refused while another " +
    "unexpired lease holds the controller id (across every host sharing the store). A new lease id and fence token are " +
    "minted: the store keeps only the fence's SHA-256; both are written to a 0600 credential file in this host's state " +
    "dir, never printed. The lease is bound to this pane, agent name, kind, cwd and (Linux) the agent's process " +
    "(AGENT_CONTROL_CONTROLLER_PID, else the terminal's foreground process, else the parent), so later mutating commands " +
    "are accepted only from a descendant of that process in this pane. The generation grows with every acquire and " +
    "resume; an older holder is fenced. Default lifetime 15 min: renew it during long coordination.",
  schema: authorityOptionsSchema,
  writes: "the controller lease row (shared store); this host's binding and 0600 credential files.",
  output: CONTROLLER_OUTPUT,
  errors: bindingErrors("CONTROLLER_HELD"),
  env: BINDING_ENV,
  examples: [
    "herdr-lease-cli controller acquire --authority-ref https://github.com/acme/api/issues/7 --authority-sha256 $(sha256sum < issue7.md | cut -c1-64)",
  ],
  needs: { deps: "herdr" },
  run: runAcquire,
  render: renderController,
});
