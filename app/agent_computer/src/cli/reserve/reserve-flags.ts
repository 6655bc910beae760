// What agent-reserve-cli's subcommands share: flags, the repository they act on, and how a reservation is shown.
import * as z from "zod/mini";
import type { Conflict } from "../../domain/reservations/conflicts.ts";
import { DEFAULT_TTL_S, MAX_PATTERNS, MAX_TTL_S } from "../../domain/reservations/limits.ts";
import { findRepository } from "../../domain/reservations/repository.ts";
import type { ReservationView } from "../../domain/reservations/reservation-view.ts";
import type { DepsOf } from "../kernel/command.ts";
import { neutralizeLine } from "../kernel/output.ts";

export const ENV = ["AGENT_COMPUTER_HOME", "AGENT_COMPUTER_DATABASE_URL", "RELAY_AGENT_TOKEN"];
export const READ_ENV = ["AGENT_COMPUTER_HOME", "AGENT_COMPUTER_DATABASE_URL"];
export const VIEW = '{"id","repo","holder","patterns":[…],"exclusive","reason","created_at","expires_at"}';
export const CONFLICT_VIEW = '{"holder","id","patterns":[…],"exclusive","expires_at"}';

export const repoSchema = z
  .optional(z.string().check(z.minLength(1), z.maxLength(4096)))
  .check(z.describe("a directory inside the repository (default: the current directory)"));
export const pathsSchema = z
  .array(z.string())
  .check(z.minLength(1), z.maxLength(MAX_PATTERNS), z.describe("a pattern relative to the repository root (repeatable)"));
export const ttlSchema = z
  ._default(z.coerce.number().check(z.int(), z.minimum(10), z.maximum(MAX_TTL_S)), DEFAULT_TTL_S)
  .check(z.describe(`seconds it lasts from now (10 to ${MAX_TTL_S})`));
export const reservationIdSchema = z
  .optional(z.array(z.string().check(z.minLength(1), z.maxLength(100))).check(z.maxLength(100)))
  .check(z.describe("which of your reservations (repeatable; default: all of yours in the repository)"));
export const PATH_FLAG = { path: { placeholder: "<pattern>", commaList: false as const } };

export const repositoryOf = (deps: DepsOf<"store">, repo: string | undefined) =>
  findRepository(repo ?? process.cwd(), deps.host, deps.ctx.env);

export const line = (r: ReservationView): string =>
  `${r.id} ${neutralizeLine(r.holder)} ${r.exclusive ? "exclusive" : "shared"} until ${r.expires_at}: ` +
  `${r.patterns.map((p) => neutralizeLine(p)).join(", ")}${r.reason ? ` (${neutralizeLine(r.reason)})` : ""}`;

export const conflictLine = (c: Conflict): string =>
  `${neutralizeLine(c.holder)} holds ${c.patterns.map((p) => neutralizeLine(p)).join(", ")} (${c.exclusive ? "exclusive" : "shared"}) until ${c.expires_at}`;
