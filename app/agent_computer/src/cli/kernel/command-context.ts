import type { Paths } from "../../paths.ts";
import type { Store } from "../../store/port.ts";

/** What a command may touch besides its options; tests pass fakes. */
export interface CommandContext {
  env: Record<string, string | undefined>;
  paths: Paths;
  now(): number;
  /** Opens (creating and migrating on first use) the store chosen by the environment. */
  store(): Promise<Store>;
  /** "-" (stdin) or a file, as text; throws InputTooLarge (input.ts) once more than maxBytes arrive. */
  readInput(path: string, maxBytes: number): Promise<string>;
}
