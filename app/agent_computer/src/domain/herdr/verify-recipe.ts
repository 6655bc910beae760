// The verification recipe: a JSON file committed in the leased repository and read from the accepted base commit's
// Git object (never from the worktree), so a writer cannot change what verifies its own work. Every command is an
// argv array run without a shell; the python lock files it names are checked by verify-locks.ts.
import * as z from "zod/mini";
import { AppError } from "../../errors.ts";
import { scopeProblem } from "./scopes.ts";

export const DEFAULT_RECIPE_PATH = ".agent-computer/verify.json";
export const MAX_RECIPE_BYTES = 64 * 1024;

// biome-ignore lint/suspicious/noControlCharactersInRegex: a NUL cannot travel in an argv element
const NUL = /\u0000/;

const repoPath = z.string().check(
  z.superRefine((path, ctx) => {
    const problem = scopeProblem(path);
    if (problem) ctx.addIssue({ code: "custom", message: `must be a literal repo-relative path: ${problem}` });
  }),
);

const stepSchema = z.strictObject({
  name: z.string().check(z.regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, "must be 1-64 of [a-z0-9._-], starting with a letter or digit")),
  argv: z
    .array(
      z.string().check(
        z.minLength(1),
        z.maxLength(4096),
        z.refine((arg) => !NUL.test(arg), "must not contain NUL"),
      ),
    )
    .check(z.minLength(1), z.maxLength(256)),
  timeout_s: z._default(z.number().check(z.int(), z.minimum(1), z.maximum(3600)), 600),
});

export const recipeSchema = z.strictObject({
  steps: z.array(stepSchema).check(z.minLength(1), z.maxLength(50)),
  bootstrap: z._default(
    z.strictObject({
      web: z._default(z.boolean(), false),
      python: z._default(z.array(repoPath).check(z.maxLength(20)), []),
      timeout_s: z._default(z.number().check(z.int(), z.minimum(1), z.maximum(3600)), 900),
    }),
    { web: false, python: [], timeout_s: 900 },
  ),
});
export type Recipe = z.output<typeof recipeSchema>;
export type RecipeStep = Recipe["steps"][number];

/** Parses the recipe's bytes; every problem is a refusal naming the field, never a stack trace. */
export const parseRecipe = (bytes: Uint8Array, path: string): Recipe => {
  const refuse = (why: string) =>
    new AppError("VERIFICATION_REFUSED", `recipe ${path} at the base commit ${why}`, { details: { check: "recipe" } });
  if (bytes.byteLength > MAX_RECIPE_BYTES) throw refuse(`is larger than ${MAX_RECIPE_BYTES} bytes`);
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw refuse("is not UTF-8 JSON");
  }
  const parsed = recipeSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw refuse(`is invalid: ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"}`);
  }
  const names = parsed.data.steps.map((step) => step.name);
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice) throw refuse(`is invalid: step name ${twice} is used twice`);
  return parsed.data;
};
