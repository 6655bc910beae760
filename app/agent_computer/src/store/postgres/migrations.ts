import type { Migration } from "../sql/db.ts";
import mesh from "./migrations/001_mesh.sql" with { type: "text" };

export const postgresMigrations: readonly Migration[] = [{ version: 1, name: "mesh", sql: mesh }];
