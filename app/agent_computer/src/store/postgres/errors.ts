// What a failure of the PostgreSQL store means to its user: the server refused the credentials, the database does
// not exist, TLS was asked of a server without it, the server is down or its disk is full. Every message names
// the server as the URL does with its password masked; anything unrecognised keeps its own error (a bug).
import { AppError } from "../../errors.ts";
import { UniqueViolation } from "../port.ts";

const VARIABLE = "AGENT_COMPUTER_DATABASE_URL";

/** The URL as a message may show it: the password (in the authority or the query) masked, nothing else kept. */
export const redactedUrl = (url: string): string => {
  const parsed = URL.parse(url);
  if (!parsed) return `${VARIABLE} (not a URL)`;
  const user = parsed.username ? `${parsed.username}${parsed.password ? ":***" : ""}@` : "";
  return `${parsed.protocol}//${user}${parsed.host}${parsed.pathname}`;
};

/** `text` with the URL's password, wherever it appears (a driver may quote a setting), masked. */
const scrub = (text: string, url: string): string => {
  const parsed = URL.parse(url);
  const secrets = [parsed?.password, parsed?.searchParams.get("password")]
    .flatMap((p) => (p ? [p, decodeURIComponent(p)] : []))
    .filter((p) => p.length > 0);
  return secrets.reduce((masked, secret) => masked.split(secret).join("***"), text);
};

/** A setting of the URL the driver refused before connecting (Bun.SQL's constructor throws it). */
export const invalidUrlSetting = (error: unknown, url: string): AppError =>
  new AppError(
    "CONFIG_INVALID",
    `${VARIABLE} has an invalid setting: ${scrub(error instanceof Error ? error.message : String(error), url)}`,
    {
      hint: "correct it: postgres://user:password@host:port/database?sslmode=disable|prefer|require|verify-ca|verify-full",
      details: { variable: VARIABLE },
      cause: error,
    },
  );

/** The SQLSTATE the server sent (Bun.SQL puts it in errno), else Bun's own ERR_POSTGRES_* code. */
export const sqlState = (error: unknown): string => {
  const e = error as { errno?: unknown; code?: unknown } | null;
  return String(e?.errno ?? e?.code ?? "");
};

const bunCode = (error: unknown): string => String((error as { code?: unknown } | null)?.code ?? "");

const server = (url: string): string => {
  const parsed = URL.parse(url);
  return parsed?.host ? parsed.host : "the server";
};

const databaseOf = (url: string): string => decodeURIComponent(URL.parse(url)?.pathname.slice(1) ?? "");

/** An IP literal needs no name resolution; a name that did not resolve explains a refused connection. */
const unresolvedHost = async (url: string): Promise<string | undefined> => {
  const host = URL.parse(url)?.hostname.replace(/^\[|\]$/g, "") ?? "";
  if (host === "" || /^[\d.]+$/.test(host) || host.includes(":")) return undefined;
  const { lookup } = await import("node:dns/promises");
  return lookup(host).then(
    () => undefined,
    () => host,
  );
};

const unreachable = async (url: string, error: unknown): Promise<AppError> => {
  const host = await unresolvedHost(url);
  return new AppError(
    "STORE_UNAVAILABLE",
    host
      ? `cannot reach the PostgreSQL store at ${redactedUrl(url)}: the host name ${host} does not resolve`
      : `cannot reach the PostgreSQL store at ${redactedUrl(url)} (${scrub(error instanceof Error ? error.message : String(error), url)})`,
    {
      hint: host
        ? `check the host name in ${VARIABLE} and this machine's DNS; retry`
        : `check that the server is up and listening there, and that ${VARIABLE} names the right host and port; retry`,
      details: { variable: VARIABLE },
      cause: error,
    },
  );
};

/**
 * The AppError for a Bun.SQL failure against `url`, a UniqueViolation for a unique constraint (services re-read
 * on it), or the error itself when it says nothing about the environment.
 */
export const classifyPostgresError = async (error: unknown, url: string): Promise<unknown> => {
  if (error instanceof AppError || error instanceof UniqueViolation) return error;
  const state = sqlState(error);
  const said = scrub(error instanceof Error ? error.message : String(error), url);
  const config = (message: string, hint: string) =>
    new AppError("CONFIG_INVALID", message, { hint, details: { variable: VARIABLE }, cause: error });
  if (state === "23505") {
    return new UniqueViolation((error as { constraint?: string }).constraint ?? said, { cause: error });
  }
  if (state.startsWith("28")) {
    return new AppError("STORE_AUTH", `the PostgreSQL server at ${server(url)} refused the login: ${said}`, {
      hint: `correct the user and password in ${VARIABLE} (postgres://user:password@host:port/database), or the server's pg_hba.conf`,
      details: { variable: VARIABLE },
      cause: error,
    });
  }
  if (state === "3D000") {
    const database = databaseOf(url);
    return config(
      `the database ${JSON.stringify(database)} does not exist on the PostgreSQL server at ${server(url)}`,
      `create it (createdb ${database || "<name>"}, as a user allowed to) or correct the database name in ${VARIABLE}`,
    );
  }
  if (bunCode(error) === "ERR_POSTGRES_TLS_NOT_AVAILABLE") {
    return config(
      `the PostgreSQL server at ${server(url)} does not accept TLS, but ${VARIABLE} requires it (sslmode=${URL.parse(url)?.searchParams.get("sslmode") ?? "require"})`,
      "enable SSL on the server, or use sslmode=disable (or prefer) where the network is trusted",
    );
  }
  if (/^ERR_POSTGRES_.*TLS|certificate|self.signed/i.test(`${bunCode(error)} ${said}`)) {
    return config(
      `TLS with the PostgreSQL server at ${server(url)} failed: ${said}`,
      `check the server's certificate and the sslmode in ${VARIABLE} (verify-full needs a certificate for that host name)`,
    );
  }
  if (state === "53100") {
    return new AppError("DISK_FULL", `the PostgreSQL server at ${server(url)} has no disk space left; nothing was written`, {
      hint: "free space on the server's data volume, then retry",
      details: { variable: VARIABLE },
      cause: error,
    });
  }
  if (state === "25006") {
    return new AppError("STORE_READ_ONLY", `the PostgreSQL server at ${server(url)} accepts only reads (a standby?)`, {
      hint: `point ${VARIABLE} at the primary server`,
      details: { variable: VARIABLE },
      cause: error,
    });
  }
  if (state === "XX001" || state === "XX002") {
    return new AppError("STORE_CORRUPT", `the PostgreSQL server at ${server(url)} reports damaged data: ${said}`, {
      hint: "the database administrator must repair it (REINDEX for an index; a restore for a table)",
      details: { variable: VARIABLE },
      cause: error,
    });
  }
  const connection = state.startsWith("08") || state.startsWith("57P") || state === "53300";
  if (
    connection ||
    bunCode(error).startsWith("ERR_POSTGRES_CONNECTION") ||
    /ECONNREFUSED|ENOTFOUND|connection/i.test(`${bunCode(error)} ${said}`)
  ) {
    return unreachable(url, error);
  }
  return error;
};
