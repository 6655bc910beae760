// In-process mesh calls against a store target, with a controllable clock.

import type { Deps } from "../../app/agent_computer/src/domain/deps.ts";
import { newId } from "../../app/agent_computer/src/domain/ids.ts";
import type { Store } from "../../app/agent_computer/src/store/port.ts";

export interface MeshClock {
  now: number;
  deps(): Deps;
  advance(ms: number): void;
}

export const meshClock = (store: Store, start = Date.UTC(2026, 10, 30, 12)): MeshClock => {
  const clock: MeshClock = {
    now: start,
    deps: () => ({ store, now: () => clock.now, host: "test-host", newId }),
    advance: (ms) => {
      clock.now += ms;
    },
  };
  return clock;
};
