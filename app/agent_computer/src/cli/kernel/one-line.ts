// Free text that other agents and people read on one line (roles, purposes, references): one rule for every
// family.
import * as z from "zod/mini";
import { notAToken } from "../../domain/identity/names.ts";

// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * One line of at most `max` characters with no control character (C0, DEL, C1): no newline, tab or escape; and no
 * token, which others would read.
 */
export const oneLine = (max: number, options: { min?: number; describe?: string } = {}) => {
  const schema = z.string().check(
    z.minLength(options.min ?? 0),
    z.maxLength(max),
    z.refine((text) => !CONTROL.test(text), "must be one line without control characters"),
    notAToken(),
  );
  return options.describe === undefined ? schema : schema.check(z.describe(options.describe));
};
