// Which Herdr server a record was made under. Pane ids are numbered per server session, so a pane is `gone` only
// when the server that holds it says so: a record is observed only through the same server (socket path), and
// from any other it is indeterminate. The socket is resolved as Herdr resolves it (adapters/herdr/socket.ts).
import { type HerdrSocket, herdrSocketOf } from "../../adapters/herdr/socket.ts";

export type HerdrServerRef = HerdrSocket;

export const herdrServerOf = (env: Record<string, string | undefined>): HerdrServerRef => herdrSocketOf(env);

/** A record without a server predates recording it: it is taken to be of the server in use. */
export const otherServer = (
  recorded: HerdrServerRef | undefined,
  env: Record<string, string | undefined>,
): string | undefined => {
  const current = herdrServerOf(env);
  if (!recorded || recorded.socket === current.socket) return undefined;
  return `it was made under the Herdr server at ${recorded.socket}, and this command reaches ${current.socket}, where its pane says nothing`;
};
