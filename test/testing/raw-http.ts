/**
 * Raw HTTP over `node:net`: what curl, a fuzzer or an auditor can send, byte for byte, with no
 * client library smoothing it (TRACE, absolute-form targets, broken escapes, bodies cut short).
 */
import { connect } from 'node:net';

export interface RawAnswer {
  /** The status of the first answer, or undefined when the server closed without one. */
  status: number | undefined;
  /** Everything the server sent. */
  text: string;
}

/**
 * Sends `bytes` on a fresh connection, half-closes it (unless `keepOpen`), and collects what comes
 * back until the server closes or `timeoutMs` passes (then the socket is destroyed).
 */
export function rawRequest(
  port: number,
  bytes: string | Buffer,
  options: { timeoutMs?: number; keepOpen?: boolean; destroyAfterWrite?: boolean } = {},
): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('latin1');
      // Interim answers (100 Continue) come first; the status is the first final one.
      const statuses = [...text.matchAll(/(?:^|\r\n)HTTP\/1\.[01] (\d{3})/g)].map((match) =>
        Number(match[1]),
      );
      resolve({ status: statuses.find((status) => status >= 200), text });
    };
    const timer = setTimeout(finish, options.timeoutMs ?? 3000);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('close', finish);
    socket.on('error', () => undefined);
    socket.on('connect', () => {
      if (options.destroyAfterWrite) {
        socket.write(bytes, () => setTimeout(() => socket.destroy(), 20));
        return;
      }
      if (options.keepOpen) socket.write(bytes);
      else socket.end(bytes);
    });
  });
}

/** A request head and optional body with CRLF line ends. */
export function httpText(method: string, target: string, headers: Record<string, string>, body = ''): string {
  const lines = [
    `${method} ${target} HTTP/1.1`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

/** The JSON body of a raw answer (after the blank line), or undefined. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the wire body, read field by field by the tests
export function rawJson(answer: RawAnswer): any {
  const index = answer.text.indexOf('\r\n\r\n');
  if (index < 0) return undefined;
  try {
    return JSON.parse(answer.text.slice(index + 4));
  } catch {
    return undefined;
  }
}
