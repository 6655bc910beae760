// What a failure of the PostgreSQL store means to its user: the server refused the login, the database does not
// exist, TLS was asked of a server without it, the server is down or out of disk. Messages name the variable and
// the part of it that is wrong (a database name, a host name that does not resolve), never the whole URL, its
// host and port or its password; anything unrecognised keeps its own error (a bug).
import { AppError, errorText } from "../../errors.ts";
import { UniqueViolation } from "../port.ts";

const VARIABLE = "AGENT_COMPUTER_DATABASE_URL";
const THE_SERVER = `the PostgreSQL server named by ${VARIABLE}`;

/** `text` with the URL's password masked wherever it appears (a driver may quote a setting). */
const scrub = (text: string, url: string): string => {
  const parsed = URL.parse(url);
  const secrets = [parsed?.password, parsed?.searchParams.get("password")]
    .flatMap((p) => (p ? [p, decodeURIComponent(p)] : []))
    .filter((p) => p.length > 0);
  return secrets.reduce((masked, secret) => masked.split(secret).join("***"), text);
};

const messageOf = (error: unknown, url: string): string => scrub(errorText(error), url);

const appError =
  (code: "STORE_AUTH" | "CONFIG_INVALID" | "DISK_FULL" | "STORE_READ_ONLY" | "STORE_CORRUPT") =>
  (message: string, hint: string, error: unknown): AppError =>
    new AppError(code, message, { hint, details: { variable: VARIABLE }, cause: error });

/** A setting of the URL the driver refused before connecting (Bun.SQL's constructor throws it). */
export const invalidUrlSetting = (error: unknown, url: string): AppError =>
  appError("CONFIG_INVALID")(
    `${VARIABLE} has an invalid setting: ${messageOf(error, url)}`,
    "correct it: postgres://user:password@host:port/database?sslmode=disable|prefer|require|verify-ca|verify-full",
    error,
  );

/** The SQLSTATE the server sent (Bun.SQL puts it in errno), else Bun's own ERR_POSTGRES_* code. */
export const sqlState = (error: unknown): string => {
  const e = error as { errno?: unknown; code?: unknown } | null;
  return String(e?.errno ?? e?.code ?? "");
};

const bunCode = (error: unknown): string => String((error as { code?: unknown } | null)?.code ?? "");

/** The URL's host when it is a name that does not resolve (which explains a refused connection); loaded on failure only. */
const unresolvedHost = async (url: string): Promise<string | undefined> => {
  const host = URL.parse(url)?.hostname ?? "";
  if (host === "" || /^[\d.]+$/.test(host) || host.includes(":") || host.startsWith("[")) return undefined;
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
    `cannot reach ${THE_SERVER}: ${host ? `its host name ${host} does not resolve` : messageOf(error, url)}`,
    {
      hint: host
        ? `check the host name in ${VARIABLE} and this machine's DNS; retry`
        : `check that the server is up and that ${VARIABLE} names its host and port; retry`,
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
  const said = messageOf(error, url);
  if (state === "23505") {
    return new UniqueViolation((error as { constraint?: string }).constraint ?? said, { cause: error });
  }
  if (state.startsWith("28")) {
    return appError("STORE_AUTH")(
      `${THE_SERVER} refused the login: ${said}`,
      `correct the user and password in ${VARIABLE} (postgres://user:password@host:port/database), or the server's pg_hba.conf`,
      error,
    );
  }
  if (state === "3D000") {
    const database = decodeURIComponent(URL.parse(url)?.pathname.slice(1) ?? "");
    return appError("CONFIG_INVALID")(
      `the database ${JSON.stringify(database)} named by ${VARIABLE} does not exist on its server`,
      `create it (createdb ${database || "<name>"}, as a user allowed to) or correct the database name in ${VARIABLE}`,
      error,
    );
  }
  if (bunCode(error) === "ERR_POSTGRES_TLS_NOT_AVAILABLE") {
    const mode = URL.parse(url)?.searchParams.get("sslmode") ?? "require";
    return appError("CONFIG_INVALID")(
      `${THE_SERVER} does not accept TLS, but the URL requires it (sslmode=${mode})`,
      "enable SSL on the server, or use sslmode=disable (or prefer) where the network is trusted",
      error,
    );
  }
  if (/^ERR_POSTGRES_.*TLS|certificate|self.signed/i.test(`${bunCode(error)} ${said}`)) {
    return appError("CONFIG_INVALID")(
      `TLS with ${THE_SERVER} failed: ${said}`,
      `check the server's certificate and the sslmode in ${VARIABLE} (verify-full needs a certificate for that host name)`,
      error,
    );
  }
  if (state === "53100") {
    return appError("DISK_FULL")(
      `${THE_SERVER} has no disk space left; nothing was written`,
      "free space on the server's data volume, then retry",
      error,
    );
  }
  if (state === "25006") {
    return appError("STORE_READ_ONLY")(
      `${THE_SERVER} accepts only reads (a standby?)`,
      `point ${VARIABLE} at the primary server`,
      error,
    );
  }
  if (state === "XX001" || state === "XX002") {
    return appError("STORE_CORRUPT")(
      `${THE_SERVER} reports damaged data: ${said}`,
      "the database administrator must repair it (REINDEX for an index; a restore for a table)",
      error,
    );
  }
  // PgBouncer refuses by name the start-up parameters that carry our session limits (pooling.ts).
  if (/unsupported startup parameter/i.test(said)) {
    return appError("CONFIG_INVALID")(
      `${THE_SERVER} refused a start-up parameter, as a connection pooler does: ${said}`,
      `if ${VARIABLE} points at PgBouncer in transaction pooling mode, add ?pool_mode=transaction to it (each transaction then sets its own limits)`,
      error,
    );
  }
  const lostConnection = state.startsWith("08") || state.startsWith("57P") || state === "53300";
  if (lostConnection || /ERR_POSTGRES_CONNECTION|ECONNREFUSED|ENOTFOUND|connection/i.test(`${bunCode(error)} ${said}`)) {
    return unreachable(url, error);
  }
  return error;
};
