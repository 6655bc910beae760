import type { StoreTx } from "../port.ts";
import type { Db } from "./db.ts";
import { meshRepo } from "./mesh.ts";

/** The repositories of one transaction, all over the same connection. */
export const reposFor = (db: Db): StoreTx => ({ mesh: meshRepo(db) });
