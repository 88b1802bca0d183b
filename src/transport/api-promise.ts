/**
 * The promise every client method returns. Await it for the data; call `.withResponse()` for the
 * data plus the raw `Response` of that one call (there is no shared "last response" on the
 * client, which would be wrong as soon as two calls overlap).
 * @module
 */

/** Data plus the HTTP response it came from. */
export interface WithResponse<T> {
  data: T;
  /** The final HTTP response (its body is already consumed); null when no request answered it. */
  response: Response | null;
  /**
   * The call's id, as `callId` in log lines, hook events, diagnostics messages and spans; absent
   * for a method made of several calls, such as `rebook`.
   */
  callId?: string | undefined;
}

/** A promise of `T` that can also give the raw response. */
export class ApiPromise<T> implements PromiseLike<T> {
  readonly #result: Promise<WithResponse<T>>;

  constructor(result: Promise<WithResponse<T>>) {
    this.#result = result;
    // The caller may only use `.withResponse()`, or only `.then()`; either way an unobserved
    // branch must not turn into an unhandled rejection.
    result.catch(() => undefined);
  }

  /** The data together with the raw `Response`. */
  withResponse(): Promise<WithResponse<T>> {
    return this.#result;
  }

  // `reason: any`, as in the standard Promise typing, so `.catch((error) => error.status)` reads the same on both.
  then<Fulfilled = T, Rejected = never>(
    onfulfilled?: ((value: T) => Fulfilled | PromiseLike<Fulfilled>) | null,
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Promise's own signature (above)
    onrejected?: ((reason: any) => Rejected | PromiseLike<Rejected>) | null,
  ): Promise<Fulfilled | Rejected> {
    return this.#result.then((result) => result.data).then(onfulfilled, onrejected);
  }

  catch<Rejected = never>(
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Promise's own signature, as then()
    onrejected?: ((reason: any) => Rejected | PromiseLike<Rejected>) | null,
  ): Promise<T | Rejected> {
    return this.then(undefined, onrejected);
  }

  finally(onfinally?: (() => void) | null): Promise<T> {
    return this.then().finally(onfinally);
  }

  get [Symbol.toStringTag](): string {
    return 'ApiPromise';
  }
}
