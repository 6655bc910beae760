/**
 * Agent CLIs this project knows by name. An unknown value is stored as null, never guessed: a wrong
 * profile would make others expect behaviour the agent does not have.
 */
export const CLI_PROFILES = [
  "aider",
  "amp",
  "claude",
  "codex",
  "copilot",
  "crush",
  "cursor",
  "gemini",
  "goose",
  "opencode",
  "qwen",
] as const;

export const normalizeCliProfile = (value: string | undefined): string | null => {
  if (value === undefined) return null;
  const lower = value.trim().toLowerCase();
  return (CLI_PROFILES as readonly string[]).includes(lower) ? lower : null;
};
