// Unpacks a tar file the project wrote itself (git archive of a commit) into an empty private directory.
import { execa } from "execa";

export const extractTar = async (tarFile: string, into: string, timeoutMs = 120_000): Promise<void> => {
  const result = await execa("tar", ["-x", "-f", tarFile, "-C", into, "--no-same-owner", "--no-same-permissions"], {
    reject: false,
    extendEnv: false,
    env: { PATH: "/usr/bin:/bin", LC_ALL: "C" },
    stdin: "ignore",
    timeout: timeoutMs,
  });
  if (result.exitCode !== 0) throw new Error(`tar could not unpack the commit's archive (exit ${result.exitCode ?? "none"})`);
};
