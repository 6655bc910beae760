// Black-box helpers for the identity binaries: the environment of one store target, registration, error envelopes.

import { type BinResult, binaryForm, runBin } from "./bin.ts";
import type { StoreTarget } from "./stores.ts";

/**
 * The environment a spawned identity binary runs with: the target's store, the binary form the suite runs
 * (AGENT_COMPUTER_TEST_FORM, see bin.ts), and rate limits off unless a test sets them.
 */
export const identityEnv = (target: StoreTarget, extra: Record<string, string> = {}): Record<string, string> => ({
  ...target.env,
  AGENT_COMPUTER_FORM: binaryForm,
  AGENT_COMPUTER_RATE_REGISTER_PER_NAME: "off",
  AGENT_COMPUTER_RATE_REGISTER_PER_HOST: "off",
  AGENT_COMPUTER_RATE_SEND_PER_NAME: "off",
  AGENT_COMPUTER_RATE_SEND_PER_HOST: "off",
  AGENT_COMPUTER_RATE_DELIVER_PER_NAME: "off",
  AGENT_COMPUTER_RATE_DELIVER_PER_HOST: "off",
  ...extra,
});

export interface RegisterOptions {
  role?: string;
  caps?: string[];
  args?: string[];
}

export const register = (env: Record<string, string>, name: string, options: RegisterOptions = {}): Promise<BinResult> =>
  runBin(
    "register-agent-cli",
    [
      "--name",
      name,
      "--role",
      options.role ?? "builder",
      "--capabilities",
      (options.caps ?? ["ts"]).join(","),
      ...(options.args ?? []),
      "--json",
    ],
    { env },
  );

export interface RegisterJson {
  action: string;
  agent: { name: string; session_id: string | null; alive: boolean; liveness_evidence: string; [key: string]: unknown };
  agent_token?: string;
  capabilities_note?: string;
  auto_assigned_tasks?: { task_id: string; title: string; priority: string }[];
  recovery_completed?: boolean;
  ended_session_id?: string;
  [key: string]: unknown;
}

/** Registers and fails loudly unless it worked; returns the parsed result. */
export const registered = async (
  env: Record<string, string>,
  name: string,
  options: RegisterOptions = {},
): Promise<RegisterJson> => {
  const r = await register(env, name, options);
  if (r.exitCode !== 0) throw new Error(`register ${name} failed (${r.exitCode}): ${r.stderr}`);
  return r.json<RegisterJson>();
};

export interface ErrorJson {
  code: string;
  message: string;
  hint?: string;
  [key: string]: unknown;
}

/** The --json error envelope on stderr. */
export const errorOf = (r: BinResult): ErrorJson => (JSON.parse(r.stderr) as { error: ErrorJson }).error;

/** Runs a binary with --json and returns the result. */
export const json = (name: string, args: string[], env: Record<string, string>, input?: string): Promise<BinResult> =>
  runBin(name, [...args, "--json"], { env, ...(input === undefined ? {} : { input }) });
