import { BROADCAST_MAX_SETTING, RATE_SETTINGS } from "../../domain/identity/rate-config.ts";

const rateDoc = (what: string, per: string, fallback: string): string =>
  `${what} per ${per}: N/S (N per S seconds) or off; default ${fallback}. Counted across processes; failed calls count nothing.`;

/** A message limit's variable: the rest of its meaning is RATE_RULE's, which every command that reads it prints. */
const messageRateDoc = (what: string, per: string, fallback: string): string =>
  `${what} per ${per}: N/S or off; default ${fallback}.`;

/** One description per environment variable, shared by every --help that lists it. */
export const ENV_DOCS = {
  AGENT_COMPUTER_HOME:
    "state directory (default $XDG_STATE_HOME/agent-computer, or ~/.local/state/agent-computer): the SQLite store, the 0600 token vault, local wake state.",
  AGENT_COMPUTER_DATABASE_URL:
    "postgres://… to use a shared PostgreSQL store instead of the embedded SQLite file; unset = embedded SQLite.",
  AGENT_COMPUTER_AGENT_ID:
    "this shell's agent id (the session hook sets it for the agent's shell; unset: agent_id of ~/.config/agent-computer/config.toml).",
  RELAY_AGENT_TOKEN: "the agent token, when --token-file is not given; otherwise the token vault in the state directory is used.",
  HERDR_ENV: "set to 1 by Herdr inside its panes; auto-wake is only armed, and controller commands only run, when it is 1.",
  AGENT_COMPUTER_WORKER_URL: "base URL of this host's worker (default http://127.0.0.1:8787), used to print webhook URLs.",
  AGENT_COMPUTER_SKILLS_DIR:
    "directory of Skills whose <name>/mcp.json declare the MCP servers automation attempts may call (default: the package's skills/).",
  AGENT_COMPUTER_SQLITE_GROUP_COMMIT:
    "1 (default) lets concurrent transactions of one process share a COMMIT on the SQLite store; 0 gives every call a plain BEGIN IMMEDIATE … COMMIT of its own, to bisect a bug (store/sqlite/group-commit.ts).",
  NO_COLOR: "disables colour (colour is only used on a TTY anyway).",
  HERDR_SESSION: "the named Herdr session whose server herdr talks to (set by Herdr inside its panes); passed through to herdr.",
  AGENT_COMPUTER_WAKE_POLL_MS:
    "auto-wake: how often the wake watcher polls the store for new mail, ms (default 20 on SQLite, 250 on PostgreSQL, which also NOTIFYs).",
  AGENT_COMPUTER_WAKE_QUIET_POLL_MS:
    "auto-wake on PostgreSQL with LISTEN: how often an armed agent with no mail is looked at anyway, ms (default 30000; each delivery's NOTIFY looks at once).",
  AGENT_COMPUTER_WAKE_COALESCE_MS:
    "auto-wake: mail arriving within this many ms of the first new message becomes one wake (default 30).",
  AGENT_COMPUTER_WAKE_TOKEN_TTL_MS:
    "auto-wake: lifetime of an unused wake token, ms; no other wake is sent to the agent meanwhile (default 600000).",
  AGENT_COMPUTER_WAKE_WORKING_MAX_MS:
    "auto-wake: how long a due wake waits for a working agent to settle before it is typed anyway, ms (default 600000).",
  AGENT_COMPUTER_WAKE_HOURLY_CAP: "auto-wake: hard cap of wakes per agent in any rolling hour, 1-120 (default 30).",
  AGENT_COMPUTER_WAKE_IDLE_EXIT_MS: "auto-wake: a light watcher exits after this many ms with no agent armed (default 60000).",
  AGENT_CONTROL_CONTROLLER_ID:
    "the stable id of the coordinator's controller lease ([A-Za-z0-9_.-]{1,100}), set by the launcher; keys this host's 0600 credential file.",
  AGENT_CONTROL_CONTROLLER_PID:
    "pid of the coordinator agent process, for launchers that `exec` the agent (AGENT_CONTROL_CONTROLLER_PID=$$ exec claude); otherwise the terminal's foreground process, else the parent process, is bound at acquire/resume (Linux).",
  HERDR_PANE_ID:
    "set by Herdr inside its panes: the caller's own pane (matched against the controller lease; agent-checkin-cli --herdr-pane must equal it).",
  HERDR_SOCKET_PATH: "the Herdr socket, set by Herdr inside its panes; passed through to the herdr CLI.",
  AGENT_COMPUTER_BWRAP:
    "absolute path of the bwrap executable host verification uses (default: bwrap on PATH); one that is not there makes verify answer UNSUPPORTED.",
  AGENT_COMPUTER_UV: "absolute path of the uv executable a python bootstrap uses (default: uv on PATH).",
  TMPDIR: "where verification makes its private, temporary copies (default /tmp); they are removed afterwards.",
  AGENT_COMPUTER_HOST_ID:
    "this machine's stable id (default /etc/machine-id); a pid is trusted as liveness evidence only on the host that recorded it.",
  XDG_STATE_HOME: "where the state directory goes when AGENT_COMPUTER_HOME is unset ($XDG_STATE_HOME/agent-computer).",
  PATH: "where programs are looked up (pg_dump, pg_restore, herdr, tmux, bwrap, uv, this installation's binaries).",
  CLAUDE_CONFIG_DIR: "Claude Code's configuration directory (default ~/.claude): its skills/ and settings.json.",
  CODEX_HOME: "Codex's configuration directory (default ~/.codex): its hooks.json; Codex Skills are read from ~/.agents/skills.",
  AGENT_COMPUTER_RETENTION_DAYS:
    "days the worker keeps acknowledged and expired mail and ended runs' output tails before it prunes them, hourly (default 30; 0 turns it off).",
  AGENT_COMPUTER_RATE_REGISTER_PER_NAME: rateDoc("registrations", "agent name", RATE_SETTINGS.register.name.default),
  AGENT_COMPUTER_RATE_REGISTER_PER_HOST: rateDoc("registrations", "host (machine id)", RATE_SETTINGS.register.host.default),
  AGENT_COMPUTER_RATE_SEND_PER_NAME: messageRateDoc("new messages", "sending agent", RATE_SETTINGS.send.name.default),
  AGENT_COMPUTER_RATE_SEND_PER_HOST: messageRateDoc("new messages", "host (machine id)", RATE_SETTINGS.send.host.default),
  AGENT_COMPUTER_RATE_DELIVER_PER_NAME: messageRateDoc("inbox deliveries", "sending agent", RATE_SETTINGS.deliver.name.default),
  AGENT_COMPUTER_RATE_DELIVER_PER_HOST: messageRateDoc(
    "inbox deliveries",
    "host (machine id)",
    RATE_SETTINGS.deliver.host.default,
  ),
  AGENT_COMPUTER_RATE_BROADCAST_PER_NAME: messageRateDoc("broadcasts", "sending agent", RATE_SETTINGS.broadcast.name.default),
  AGENT_COMPUTER_BROADCAST_MAX_RECIPIENTS: `the most agents one broadcast may select, 1-9999999; default ${BROADCAST_MAX_SETTING.default}.`,
} as const;

export type EnvName = keyof typeof ENV_DOCS;
