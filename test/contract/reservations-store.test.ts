// File reservations against every store, in process, with racers on separate store connections released together:
// of overlapping reservations racing on one repository exactly one is granted, every round. This is the race the
// repository row lock decides (store/sql/reservations.ts lockRepo); the binaries' race is in test/e2e/agent-reserve.test.ts.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Deps } from "../../app/agent_computer/src/domain/deps.ts";
import { newId } from "../../app/agent_computer/src/domain/ids.ts";
import { reserve } from "../../app/agent_computer/src/domain/reservations/reserve.ts";
import type { Store } from "../../app/agent_computer/src/store/port.ts";
import { failure, type MeshAgents, openMeshAgents } from "../helpers/mesh.ts";
import { storeNames } from "../helpers/stores.ts";

const RACERS = 6;
const ROUNDS = 15;
const PATTERNS = ["lib/**", "lib/a.ts", "lib/*.ts", "**/a.ts", "lib", "*/a.*"];

describe.each(storeNames)("file reservations [%s]", (storeName) => {
  let mesh: MeshAgents;
  const stores: Store[] = [];
  const racers = Array.from({ length: RACERS }, (_, i) => `racer-${i}`);

  beforeAll(async () => {
    mesh = await openMeshAgents(storeName);
    for (const agent of racers) await mesh.join(agent);
    for (const _ of racers) stores.push(await mesh.target.open());
  }, 60_000);
  afterAll(async () => {
    for (const store of stores) await store.close();
    await mesh?.close();
  });

  test("racing overlapping exclusive reservations on separate connections: exactly one wins each round", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const repoKey = `git:example.invalid/race-${round % 3}`;
      const now = mesh.clock.now + round * 7_200_000;
      const outcomes = await Promise.all(
        racers.map((agentId, i) => {
          const deps: Deps = { store: stores[i] as Store, now: () => now, host: "test-host", newId };
          const input = {
            agentId,
            token: mesh.token(agentId),
            repoKey,
            patterns: [PATTERNS[i] ?? "lib"],
            exclusive: true,
            ttlS: 3600,
            reason: "",
          };
          return failure(reserve(deps, input));
        }),
      );
      const won = outcomes.filter((o) => o === undefined);
      expect(won, `round ${round}: ${JSON.stringify(outcomes.map((o) => o?.code ?? "granted"))}`).toHaveLength(1);
      expect(outcomes.filter((o) => o?.code === "CONFLICT")).toHaveLength(RACERS - 1);
    }
  }, 120_000);
});
