// Doctor's settings check: where the state directory, the database URL and the default agent id come from (a flag,
// the environment, the configuration file or the default), the database password masked.
import { errorText } from "../../errors.ts";
import { neutralizeLine } from "../kernel/output.ts";
import { loadEffectiveSettings } from "../kernel/settings.ts";
import type { DoctorCheck } from "./doctor-check.ts";

export const settingsCheck: DoctorCheck = {
  name: "settings",
  run: async (ctx) => {
    // The environment as launched: the command's own has the file's values merged in, which would hide their source.
    const loaded = await loadEffectiveSettings(ctx.launchEnv).catch((error: unknown) => error as Error);
    if (loaded instanceof Error) {
      return {
        status: "error",
        detail: neutralizeLine(errorText(loaded)),
        fix: (loaded as { hint?: string }).hint ?? "fix or remove the configuration file",
      };
    }
    const each = loaded.settings.map((s) => `${s.key}=${neutralizeLine(s.shown)} (${s.source})`).join("; ");
    const file = `${neutralizeLine(loaded.file)}${loaded.present ? "" : " (none)"}`;
    return { status: "ok", detail: `${each}; config file ${file}` };
  },
};
