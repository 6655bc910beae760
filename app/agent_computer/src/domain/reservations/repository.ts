// The repository around a directory, as reservations name it (repository-key.ts), or an error naming --repo.
import { GitError } from "../../adapters/git.ts";
import { repositoryFacts } from "../../adapters/git-paths.ts";
import { AppError } from "../../errors.ts";
import { repositoryKey } from "./repository-key.ts";

export interface Repository {
  key: string;
  topLevel: string;
}

/** The repository around `dir`, or INVALID_INPUT naming --repo. */
export const findRepository = async (
  dir: string,
  host: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<Repository> => {
  try {
    const facts = await repositoryFacts(dir, env);
    return { key: repositoryKey(facts, host), topLevel: facts.topLevel };
  } catch (error) {
    if (error instanceof GitError && error.kind === "not_a_repository") {
      throw new AppError("INVALID_INPUT", `--repo: ${dir} is not inside a git working tree`, {
        hint: "run it inside the repository, or pass --repo <dir>",
      });
    }
    throw gitFailure(error);
  }
};

/** A git that cannot answer, as the error every command can name (not a stack trace). */
export const gitFailure = (error: unknown): unknown =>
  error instanceof GitError ? new AppError("UNSUPPORTED", `git could not answer: ${error.message}`) : error;
