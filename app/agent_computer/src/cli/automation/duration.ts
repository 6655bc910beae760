// "--in 90s", "15m", "2h30m", "1d": a duration in whole seconds, as a zod schema that reports its own errors. How far
// ahead it may reach is create-checkback-cli's bound, the same for --in and --at.
import * as z from "zod/mini";

const PATTERN = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;
const UNIT_SECONDS = [86_400, 3600, 60, 1];

export const durationSchema = z.pipe(
  z.string().check(
    z.regex(PATTERN, "must be like 90s, 15m, 2h30m or 1d"),
    z.refine((text) => text !== "", "must not be empty"),
  ),
  z.transform((text: string) => {
    const parts = PATTERN.exec(text)?.slice(1) ?? [];
    return parts.reduce((sum, part, i) => sum + Number(part ?? 0) * (UNIT_SECONDS[i] ?? 0), 0);
  }),
);
