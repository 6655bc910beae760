// Every throw-away PostgreSQL database a test file makes is dropped when the file ends, also when a test failed
// before its own dispose ran: the helpers that create one remember it here and forget it once they dropped it.
// Registered when a test file first imports this module, so it runs after the file's own after-hooks.
import { SQL } from "bun";
import { afterAll } from "vitest";
import { dropDatabase } from "./pg-admin.ts";

/** Database name -> the URL of a database on the same server to drop it from. */
const undropped = new Map<string, string>();

export const rememberDatabase = (name: string, adminUrl: string): void => {
  undropped.set(name, adminUrl);
};

export const forgetDatabase = (name: string): void => {
  undropped.delete(name);
};

afterAll(async () => {
  for (const [name, url] of undropped) {
    const admin = new SQL(url);
    try {
      await dropDatabase(admin, name);
    } finally {
      await admin.close();
    }
    undropped.delete(name);
  }
});
