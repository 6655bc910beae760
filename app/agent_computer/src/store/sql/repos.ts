import type { StoreTx } from "../port.ts";
import { automationRepo } from "./automation.ts";
import type { Db } from "./db.ts";
import { herdrRepo } from "./herdr.ts";
import { identityRepo } from "./identity.ts";
import { meshRepo } from "./mesh.ts";
import { tasksRepo } from "./tasks.ts";
import { wakeRepo } from "./wake.ts";

/** The repositories of one transaction, all over the same connection. */
export const reposFor = (db: Db): StoreTx => ({
  mesh: meshRepo(db),
  identity: identityRepo(db),
  tasks: tasksRepo(db),
  automation: automationRepo(db),
  wake: wakeRepo(db),
  herdr: herdrRepo(db),
});
