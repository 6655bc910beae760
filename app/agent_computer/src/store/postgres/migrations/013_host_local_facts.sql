-- Host-local facts leave the store: the process that registered a name (pid, start time, shell ancestry) is kept by
-- the host it runs on, in its state directory, and a worker's pid by nobody; in a shared store neither means
-- anything to the other hosts.
ALTER TABLE agents DROP COLUMN agent_pid;
ALTER TABLE agents DROP COLUMN agent_pid_start;
ALTER TABLE agents DROP COLUMN host_shell_pids;
ALTER TABLE automation_workers DROP COLUMN pid;
