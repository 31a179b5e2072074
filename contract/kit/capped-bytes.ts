/**
 * The bytes of a stream kept up to a cap, however long the stream runs: what a body read keeps
 * as evidence. A chunk that crosses the cap is cut there; nothing after it is kept.
 */
export class CappedBytes {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  /** Whether a chunk met the cap: what came from there on is not kept. */
  full = false;

  constructor(private readonly cap: number) {}

  /** Keeps the chunk, cut at the cap; false once the cap is met. */
  add(chunk: Buffer): boolean {
    if (this.kept + chunk.length <= this.cap) {
      this.chunks.push(chunk);
      this.kept += chunk.length;
      return true;
    }
    this.chunks.push(chunk.subarray(0, this.cap - this.kept));
    this.kept = this.cap;
    this.full = true;
    return false;
  }

  get length(): number {
    return this.kept;
  }

  bytes(): Buffer {
    return Buffer.concat(this.chunks, this.kept);
  }
}
