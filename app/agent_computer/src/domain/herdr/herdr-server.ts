// Which Herdr server a record was made under. Pane ids are numbered per server session, so a pane is `gone` only
// when the server that holds it says so: a record is observed only through the same server (socket path), and
// from any other it is indeterminate. The socket is resolved as Herdr resolves it (and as `herdr status --json`
// reports it): HERDR_SOCKET_PATH, else the HERDR_SESSION's socket, else the default one.
import { homedir } from "node:os";
import { join } from "node:path";

export interface HerdrServerRef {
  socket: string;
  session: string | null;
}

export const herdrServerOf = (env: Record<string, string | undefined>): HerdrServerRef => {
  const configHome = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config");
  const session = env.HERDR_SESSION || null;
  if (env.HERDR_SOCKET_PATH) return { socket: env.HERDR_SOCKET_PATH, session };
  if (session) return { socket: join(configHome, "herdr", "sessions", session, "herdr.sock"), session };
  return { socket: join(configHome, "herdr", "herdr.sock"), session: null };
};

/** A record without a server predates recording it: it is taken to be of the server in use. */
export const otherServer = (
  recorded: HerdrServerRef | undefined,
  env: Record<string, string | undefined>,
): string | undefined => {
  const current = herdrServerOf(env);
  if (!recorded || recorded.socket === current.socket) return undefined;
  return `it was made under the Herdr server at ${recorded.socket}, and this command reaches ${current.socket}, where its pane says nothing`;
};
