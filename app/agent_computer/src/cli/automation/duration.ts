// "--in 90s", "15m", "2h30m", "1d": a duration in whole seconds, as a zod schema that reports its own errors.
import { z } from "zod";

const PATTERN = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;
const UNIT_SECONDS = [86_400, 3600, 60, 1];
export const MAX_DELAY_SECONDS = 366 * 86_400;

export const durationSchema = z
  .string()
  .regex(PATTERN, "must be like 90s, 15m, 2h30m or 1d")
  .refine((text) => text !== "", "must not be empty")
  .transform((text, ctx) => {
    const parts = PATTERN.exec(text)?.slice(1) ?? [];
    const seconds = parts.reduce((sum, part, i) => sum + Number(part ?? 0) * (UNIT_SECONDS[i] ?? 0), 0);
    if (seconds > MAX_DELAY_SECONDS) ctx.addIssue({ code: "custom", message: "must be at most 366 days" });
    return seconds;
  });
