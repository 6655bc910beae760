// A TCP stand-in in front of the test PostgreSQL server, for the failures a shared server cannot be made to have
// on demand: it answers the next connections the way a server that is starting up (or full) does, or forwards
// connections byte for byte and cuts one the moment its client sends COMMIT (the connection lost mid-commit), or
// goes silent (a network that drops every packet).
// It speaks only what it must of the protocol: the SSL request (refused, as the test server does) and the
// start-up message, then a FATAL ErrorResponse.

import type { Socket, TCPSocketListener } from "bun";

export interface Refusal {
  sqlstate: string;
  message: string;
}

export const STARTING_UP: Refusal = { sqlstate: "57P03", message: "the database system is starting up" };
export const TOO_MANY_CLIENTS: Refusal = { sqlstate: "53300", message: "sorry, too many clients already" };

export interface PgProxy {
  /** The upstream URL with this proxy's address in it. */
  url: string;
  /** The next `count` connections are refused with `refusal`; later ones are forwarded. */
  refuseNext(refusal: Refusal, count: number): void;
  /** The next `count` forwarded COMMITs are never forwarded: their connection is cut (both ends) instead. */
  cutAtCommit(count: number): void;
  /**
   * From now on (until called with false) nothing passes either way on any forwarded connection: bytes are
   * dropped, the connections stay open, as when a network goes silent. With "at-commit", silence starts the
   * moment a client sends COMMIT (which is dropped).
   */
  silence(on: boolean | "at-commit"): void;
  /** How many connections were refused so far, and how many cut at COMMIT. */
  readonly stats: { refused: number; cutAtCommit: number };
  close(): void;
}

const SSL_REQUEST_CODE = 80877103;

const errorResponse = ({ sqlstate, message }: Refusal): Uint8Array => {
  const fields = [`SFATAL`, `VFATAL`, `C${sqlstate}`, `M${message}`].map((f) => `${f}\0`).join("");
  const body = Buffer.from(`${fields}\0`, "utf8");
  const head = Buffer.alloc(5);
  head.write("E", 0, "latin1");
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
};

interface Conn {
  mode: "refuse" | "forward";
  refusal?: Refusal;
  pending: Buffer;
  upstream?: Socket<undefined>;
  queued: Buffer[];
  cut: boolean;
}

/** COMMIT as Bun.SQL sends it: a simple Query message ("Q", its length, the text and a NUL). */
const COMMIT_QUERY = Buffer.from("Q\0\0\0\x0bCOMMIT\0", "latin1");

export const startPgProxy = async (upstreamUrl: string): Promise<PgProxy> => {
  const upstream = new URL(upstreamUrl);
  const upstreamPort = Number(upstream.port || 5432);
  let refusal: Refusal | undefined;
  let refuseLeft = 0;
  let commitsToCut = 0;
  let silent: boolean | "at-commit" = false;
  const stats = { refused: 0, cutAtCommit: 0 };

  const endBoth = (client: Socket<Conn>) => {
    client.data.cut = true;
    client.data.upstream?.end();
    client.end();
  };

  const forward = (client: Socket<Conn>, chunk: Buffer) => {
    if (silent === "at-commit" && chunk.includes(COMMIT_QUERY)) silent = true;
    if (silent === true) return;
    if (commitsToCut > 0 && chunk.includes(COMMIT_QUERY)) {
      commitsToCut--;
      stats.cutAtCommit++;
      endBoth(client);
      return;
    }
    if (client.data.upstream) client.data.upstream.write(chunk);
    else client.data.queued.push(chunk);
  };

  const listener: TCPSocketListener<Conn> = Bun.listen<Conn>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(client) {
        if (refuseLeft > 0 && refusal) {
          refuseLeft--;
          client.data = { mode: "refuse", refusal, pending: Buffer.alloc(0), queued: [], cut: false };
          return;
        }
        client.data = { mode: "forward", pending: Buffer.alloc(0), queued: [], cut: false };
        void Bun.connect<undefined>({
          hostname: upstream.hostname,
          port: upstreamPort,
          socket: {
            data(_server, chunk) {
              if (!client.data.cut && silent !== true) client.write(chunk);
            },
            close() {
              client.end();
            },
            error() {
              client.end();
            },
          },
        }).then(
          (server) => {
            if (client.data.cut) {
              server.end();
              return;
            }
            client.data.upstream = server;
            for (const chunk of client.data.queued.splice(0)) server.write(chunk);
          },
          () => client.end(),
        );
      },
      data(client, chunk) {
        if (client.data.mode === "forward") {
          forward(client, Buffer.from(chunk));
          return;
        }
        // Refusing: read the SSL request (answer "no SSL") or the start-up message, then the FATAL error.
        const conn = client.data;
        conn.pending = Buffer.concat([conn.pending, Buffer.from(chunk)]);
        while (conn.pending.length >= 8) {
          const length = conn.pending.readInt32BE(0);
          if (conn.pending.length < length) return;
          const code = conn.pending.readInt32BE(4);
          conn.pending = conn.pending.subarray(length);
          if (code === SSL_REQUEST_CODE) {
            client.write("N");
            continue;
          }
          stats.refused++;
          client.write(errorResponse(conn.refusal as Refusal));
          client.end();
          return;
        }
      },
      close(client) {
        client.data?.upstream?.end();
      },
      error(client) {
        client.data?.upstream?.end();
      },
    },
  });
  const url = new URL(upstreamUrl);
  url.hostname = "127.0.0.1";
  url.port = String(listener.port);
  return {
    url: url.toString(),
    refuseNext(next, count) {
      refusal = next;
      refuseLeft = count;
    },
    cutAtCommit(count) {
      commitsToCut = count;
    },
    silence(on) {
      silent = on;
    },
    stats,
    close: () => listener.stop(true),
  };
};
