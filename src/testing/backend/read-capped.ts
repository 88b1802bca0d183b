/**
 * Reading a webhook receiver's answer without letting it grow the fake's memory: the fake records
 * at most a few kilobytes of each answer.
 * @module
 */

/** Reads at most `cap` bytes of a body, then cancels the rest. */
export async function readCapped(
  response: Response,
  cap: number,
): Promise<{ text: string; truncated: boolean }> {
  if (!response.body) return { text: '', truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
      if (size > cap) {
        truncated = true;
        break;
      }
    }
  } finally {
    if (truncated) void reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
  const bytes = new Uint8Array(Math.min(size, cap));
  let offset = 0;
  for (const chunk of chunks) {
    const part = chunk.subarray(0, Math.min(chunk.byteLength, bytes.byteLength - offset));
    bytes.set(part, offset);
    offset += part.byteLength;
    if (offset >= bytes.byteLength) break;
  }
  // A character cut at the cap decodes as U+FFFD rather than failing.
  return { text: new TextDecoder().decode(bytes), truncated };
}
