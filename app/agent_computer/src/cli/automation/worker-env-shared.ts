// What worker-env-cli's subcommands share: the trust sentence of the WorkerEnv.

export const TRUST =
  "Values are stored in the store (an attempt needs the value itself): whoever can read the store can read them. They " +
  "are never printed again: listings show the key, the value's length and when it was set.";
