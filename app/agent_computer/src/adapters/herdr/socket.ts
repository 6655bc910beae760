// Where the herdr CLI finds its server, resolved as Herdr resolves it (and as `herdr status --json` reports it):
// HERDR_SOCKET_PATH, else the HERDR_SESSION's socket, else the default one under the config home
// (docs/herdr-facts.md §8: the socket path order).
import { homedir } from "node:os";
import { join } from "node:path";

export interface HerdrSocket {
  socket: string;
  session: string | null;
}

export const herdrSocketOf = (env: Record<string, string | undefined>): HerdrSocket => {
  const configHome = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config");
  const session = env.HERDR_SESSION || null;
  if (env.HERDR_SOCKET_PATH) return { socket: env.HERDR_SOCKET_PATH, session };
  if (session) return { socket: join(configHome, "herdr", "sessions", session, "herdr.sock"), session };
  return { socket: join(configHome, "herdr", "herdr.sock"), session: null };
};
