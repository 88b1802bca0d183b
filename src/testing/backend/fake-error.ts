/**
 * The one error the fake's backend throws: a refusal with the HTTP status, code and field
 * messages both faces answer with. The partner API and the control API serialise it as
 * `{"detail": ..., "code"?: ..., "<field>": [messages]}`; JavaScript callers of the control
 * methods (`fake.addRestaurant(...)`, `fake.asRestaurant.confirm(...)`) receive it thrown.
 * @module
 */

/** Field messages: `{"field": ["message"]}`. */
export type FieldErrors = Record<string, string[]>;

/** A refusal by the fake: what the HTTP answer would be, readable without parsing it. */
export class FakeError extends Error {
  override name = 'FakeError';
  /** The HTTP status the fake answers (400, 404, 409, ...). */
  readonly status: number;
  /** A machine-readable reason when there is one (`no_availability`, `invalid_transition`, ...). */
  readonly code: string | undefined;
  /** The `detail` of the answer. */
  readonly detail: string;
  /** Messages by field (empty when the refusal is not about a field). */
  readonly fields: FieldErrors;

  constructor(status: number, detail: string, options: { code?: string; fields?: FieldErrors } = {}) {
    super(`${status}: ${describe(detail, options.fields ?? {})}`);
    this.status = status;
    this.detail = detail;
    this.code = options.code;
    this.fields = options.fields ?? {};
  }

  /** The JSON body the fake answers: `{"detail", "code"?, ...fields}`. */
  get body(): Record<string, unknown> {
    return { detail: this.detail, ...(this.code === undefined ? {} : { code: this.code }), ...this.fields };
  }
}
/** True for a refusal by the fake. */
export const isFakeError = (error: unknown): error is FakeError => error instanceof FakeError;

function describe(detail: string, fields: FieldErrors): string {
  const extra = Object.entries(fields).map(([key, messages]) => `${key}: ${messages.join(' ')}`);
  return [detail, ...extra].join('; ');
}

/** 400 with a field map. */
export const invalid = (fields: FieldErrors, detail = 'Invalid input.'): FakeError =>
  new FakeError(400, detail, { fields });

/** 404: "never revealing that it exists" when `detail` is left as is. */
export const notFound = (detail = 'Not found.'): FakeError => new FakeError(404, detail);

/** 409 for a reservation that cannot move as asked (see the transition table). */
export const invalidTransition = (detail: string): FakeError =>
  new FakeError(409, detail, { code: 'invalid_transition' });
