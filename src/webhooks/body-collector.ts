/**
 * Collecting a request body chunk by chunk under a size limit, shared by the fetch-style reader,
 * the `node:http` adapter and the fake service, so all refuse an oversized body at the same point.
 * @module
 */

/** Gathers body chunks until the limit; `add` says when a chunk pushed the total past it. */
export class BodyCollector {
  readonly #maxBytes: number;
  readonly #chunks: Uint8Array[] = [];
  #total = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** Keeps the chunk; false (keeping nothing more) once the body is larger than the limit. */
  add(chunk: Uint8Array): boolean {
    this.#total += chunk.byteLength;
    if (this.#total > this.#maxBytes) return false;
    this.#chunks.push(chunk);
    return true;
  }

  /** The body so far, as one array (the chunk itself when there is one: no copy). */
  join(): Uint8Array {
    if (this.#chunks.length === 1) return this.#chunks[0]!;
    const body = new Uint8Array(this.#total);
    let offset = 0;
    for (const chunk of this.#chunks) {
      body.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return body;
  }
}

/**
 * Reads a web stream to its end under `maxBytes`, cancelling it as soon as it passes the limit so
 * an oversized body is never held in memory. Resolves to the bytes, or undefined when too large; a
 * failed read rejects with the stream's own error.
 */
export async function readLimited(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  maxBytes: number,
): Promise<Uint8Array | undefined> {
  const collector = new BodyCollector(maxBytes);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return collector.join();
    if (!collector.add(value)) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
  }
}
