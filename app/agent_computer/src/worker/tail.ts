/** Keeps the last `limit` bytes of a stream; everything earlier is counted and dropped. */
export class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  dropped = 0;

  constructor(private readonly limit: number) {}

  push(chunk: Uint8Array): void {
    this.chunks.push(Buffer.from(chunk));
    this.size += chunk.length;
    while (this.size > this.limit && this.chunks.length > 0) {
      const first = this.chunks[0] as Buffer;
      const excess = this.size - this.limit;
      if (first.length <= excess) {
        this.chunks.shift();
        this.size -= first.length;
        this.dropped += first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.size -= excess;
        this.dropped += excess;
      }
    }
  }

  /** The tail as text; a cut multi-byte character at the start shows as U+FFFD. */
  text(): string {
    const tail = Buffer.concat(this.chunks).toString("utf8");
    return this.dropped > 0 ? `[… ${this.dropped} earlier bytes dropped]\n${tail}` : tail;
  }
}
