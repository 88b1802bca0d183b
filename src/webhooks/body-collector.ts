/**
 * Collecting a request body chunk by chunk under a size limit, shared by the fetch-style reader
 * and the `node:http` adapter so both refuse an oversized body at the same point.
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

  /** The body so far, as one array. */
  join(): Uint8Array {
    const body = new Uint8Array(this.#total);
    let offset = 0;
    for (const chunk of this.#chunks) {
      body.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return body;
  }
}
