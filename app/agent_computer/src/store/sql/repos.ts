import type { StoreTx } from "../port.ts";
import { adminRepo } from "./admin.ts";
import { automationRepo } from "./automation.ts";
import { channelRepo } from "./channels.ts";
import type { Db } from "./db.ts";
import { herdrRepo } from "./herdr.ts";
import { identityRepo } from "./identity.ts";
import { meshRepo } from "./mesh.ts";
import { overviewRepo } from "./operator-overview.ts";
import { webhookRepo } from "./outbound-webhooks.ts";
import { reservationRepo } from "./reservations.ts";
import { tasksRepo } from "./tasks.ts";
import { wakeRepo } from "./wake.ts";

const built = new WeakMap<Db, StoreTx>();

/**
 * The repositories of one transaction, all over the same connection. Repositories are stateless closures
 * over their Db, so they are built once per Db: SQLite's single connection reuses them for every
 * transaction; each PostgreSQL transaction brings its own Db.
 */
export const reposFor = (db: Db): StoreTx => {
  let repos = built.get(db);
  if (!repos) {
    const webhooks = webhookRepo(db);
    repos = {
      mesh: meshRepo(db, webhooks),
      channels: channelRepo(db),
      identity: identityRepo(db),
      tasks: tasksRepo(db),
      automation: automationRepo(db),
      wake: wakeRepo(db),
      herdr: herdrRepo(db),
      webhooks,
      reservations: reservationRepo(db),
      overview: overviewRepo(db),
      admin: adminRepo(db),
    };
    built.set(db, repos);
  }
  return repos;
};
