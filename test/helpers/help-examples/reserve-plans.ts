// Plans for agent-reserve-cli's --help examples (see plan.ts): each runs inside a git repository with an origin.
import { type CommandPlan, checkIn } from "./plan.ts";
import type { World } from "./world.ts";

const EXAMPLE_RESERVATION = "rsv_0193a1b2c3d4e5f60718293a4b5c6d7e";
const inRepo = ["git init -q . && git remote add origin git@github.com:example/app.git", checkIn("builder-1")];
const reserved = [...inRepo, "agent-reserve-cli reserve --agent-id builder-1 --path 'src/api/**'"];

const newestReservation = async (world: World): Promise<Record<string, string>> => {
  const { reservations } = await world.json<{ reservations: { id: string }[] }>(
    "agent-reserve-cli list --holder builder-1 --json",
  );
  return { [EXAMPLE_RESERVATION]: reservations.at(-1)?.id ?? "no-reservation" };
};

export const RESERVE_PLANS: Record<string, CommandPlan> = {
  "agent-reserve-cli (binary)": { given: inRepo },
  "agent-reserve-cli reserve": { given: inRepo },
  "agent-reserve-cli renew": { given: reserved },
  "agent-reserve-cli release": {
    given: reserved,
    before: { 1: ["agent-reserve-cli reserve --agent-id builder-1 --path docs"] },
    varsBefore: { 1: newestReservation },
  },
  "agent-reserve-cli list": { given: reserved },
  "agent-reserve-cli check": { given: reserved },
  "agent-reserve-cli git-hook install": { given: [...inRepo, "mkdir -p ~/src/app && git init -q ~/src/app"] },
  "agent-reserve-cli git-hook run": { given: [...inRepo, "echo a > f && git add f"] },
};
