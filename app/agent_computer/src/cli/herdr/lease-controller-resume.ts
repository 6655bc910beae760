import { type ControllerView, resumeController } from "../../domain/herdr/controller-lease.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import {
  type AuthorityOptions,
  authorityOptionsSchema,
  bindingErrors,
  CONTROLLER_OUTPUT,
  renderController,
} from "./lease-controller-options.ts";
import { BINDING_ENV } from "./shared.ts";

const runResume = async (options: AuthorityOptions, deps: DepsOf<"herdr">): Promise<ControllerView> =>
  resumeController(deps, options);

export default defineCommand({
  name: "herdr-lease-cli controller resume",
  summary: "re-bind this host's controller lease to the current process of the same agent (new fence)",
  description:
    "For the agent that acquired the lease, after its process restarted or when mutating commands report that the process " +
    "ancestry no longer matches. Requires the same pane, agent name, kind and cwd (not terminal id: a Herdr handoff changes it) as recorded at acquire and an " +
    "active lease of the same generation (also when it expired meanwhile); a released lease or one replaced by a newer " +
    "acquire is refused (CONTROLLER_FENCED). Mints a new lease id and fence (generation + 1), renews the lifetime and binds " +
    "the current agent process. Leases of reviewers, writers and adopted panes stay with the controller id.",
  schema: authorityOptionsSchema,
  writes: "the controller lease row (shared store); this host's binding and 0600 credential files.",
  output: CONTROLLER_OUTPUT,
  errors: bindingErrors("CONTROLLER_FENCED", "CONTROLLER_HELD"),
  env: BINDING_ENV,
  examples: [
    "herdr-lease-cli controller resume --authority-ref https://github.com/acme/api/issues/7 --authority-sha256 $(sha256sum < issue7.md | cut -c1-64)",
  ],
  needs: { deps: "herdr" },
  run: runResume,
  render: renderController,
});
