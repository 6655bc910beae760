// A PostgreSQL connection whose network goes silent (a cable pulled, a host cut off, packets dropped) never fails
// by itself: the statement waiting on it waits until TCP gives up, a quarter of an hour later. The server answers
// every statement of ours within statement_timeout (30 s, session-settings.ts), if only with its cancellation, so
// a connection that answers nothing for longer than that while a statement waits is taken as gone: its pool is
// closed (which fails what waits on it at once) and a fresh pool serves what comes next.
//
// Migrations lift statement_timeout and may run long on purpose: they run unwatched (migrate.ts).

/** No answer for this long while a statement of ours waits: the connection is taken as gone. */
export const ANSWER_DEADLINE_MS = 35_000;

/** Bun.SQL's errors carry a code; this one is ours, for a statement failed because its connection went silent. */
export const NO_ANSWER_CODE = "AGENT_COMPUTER_POSTGRES_NO_ANSWER";

/**
 * The failure of a statement cut off by the watch. Through a transaction pooler the silence may also be the pooler
 * holding the client in its queue (PgBouncer's query_wait_timeout is 120 s by default), so the message says both.
 */
export const noAnswerError = (deadlineMs: number, pooled = false): Error =>
  Object.assign(
    new Error(
      `the PostgreSQL server did not answer for ${deadlineMs / 1000} s (${pooled ? "the network to it may be down, or the pooler has no free server connection" : "the network to it may be down"})`,
    ),
    { code: NO_ANSWER_CODE },
  );

export class AnswerWatch {
  /** Grows by one each time the watch gives up on the connections: an operation started before it was cut off. */
  generation = 0;
  private waiting = 0;
  private paused = 0;
  /** When something watched last answered, or waiting began. */
  private lastAnswerAt = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly deadlineMs: number,
    private readonly onSilence: () => void,
  ) {}

  /**
   * Watches `answer`: every answer to anything watched starts the deadline again. A counter and a time stamp per
   * statement; the one timer is set again only when it fires, so the write path pays no timer per statement.
   */
  track<T>(answer: Promise<T>): Promise<T> {
    if (this.waiting++ === 0) this.lastAnswerAt = performance.now();
    this.arm();
    const settled = () => {
      this.waiting--;
      this.lastAnswerAt = performance.now();
    };
    answer.then(settled, settled);
    return answer;
  }

  /** Runs fn with the deadline off (statements that may run long on purpose). */
  async unwatched<T>(fn: () => Promise<T>): Promise<T> {
    this.paused++;
    try {
      return await fn();
    } finally {
      this.paused--;
      this.lastAnswerAt = performance.now();
    }
  }

  stop(): void {
    clearTimeout(this.timer);
    this.paused++;
  }

  private arm(delayMs = this.deadlineMs): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => this.check(), delayMs);
    // A watch never keeps a process alive: a command that is done exits.
    this.timer.unref();
  }

  private check(): void {
    this.timer = undefined;
    if (this.waiting === 0) return;
    const silentFor = performance.now() - this.lastAnswerAt;
    if (this.paused > 0 || silentFor < this.deadlineMs) {
      this.arm(this.paused > 0 ? this.deadlineMs : this.deadlineMs - silentFor);
      return;
    }
    this.generation++;
    this.lastAnswerAt = performance.now();
    this.onSilence();
  }
}
