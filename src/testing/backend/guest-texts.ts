/**
 * The guest's text fields of a reservation in the fake (names, contact, comment, language): which
 * there are, and the spec's rule for each, come from `RESERVATION_FIELDS`; this module adds only
 * what the fake decides where the spec is silent. A text field added to that table is accepted,
 * checked, stored, returned and carried by events with no change here.
 * @module
 */
import {
  RESERVATION_FIELDS,
  TEXT_CREATE_FIELDS,
  type TextCreateField,
} from '../../resources/reservation-fields.js';
import type { FieldCollector } from './validation.js';

/** The guest's text fields as the fake stores them. */
export type GuestTexts = { [Field in TextCreateField]: string | null };

/** What the fake adds to the spec's rule of a text field. */
interface FakeTextRule {
  /** Longest value where the spec states none. */
  readonly max?: number;
  /** Accepts null although the client's schema does not. */
  readonly nullable?: boolean;
  /** A shape the value must have (an empty string is let through when `emptyAllowed`). */
  readonly pattern?: RegExp;
  readonly emptyAllowed?: boolean;
  /** The refusal when the shape is wrong, and the shape in words for the table of limits. */
  readonly message?: string;
  readonly shape?: string;
  /** Stored when the field is left out (null otherwise). */
  readonly omitted?: string;
}

/** The shape of a BCP 47 tag the fake accepts: a 2-3 letter language and optional subtags. */
export const LANGUAGE_TAG = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$/;
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

// Spec: "Maximum length of email and comment: not shown": the fake picks RFC 5321's path limit
// for email and 10 000 for comment; RFC 5646's advice for the longest language tag worth supporting.
const FAKE_TEXT_RULES: Partial<Record<TextCreateField, FakeTextRule>> = {
  first_name: { omitted: '' },
  last_name: { omitted: '' },
  email: {
    max: 254,
    pattern: EMAIL,
    emptyAllowed: true,
    message: 'Enter a valid email address.',
    shape: 'one @ and a dot after it',
  },
  comment: { max: 10_000 },
  language: {
    max: 35,
    nullable: true,
    pattern: LANGUAGE_TAG,
    message: 'Expected a BCP 47 language tag such as en, fr or nl-BE.',
    shape: `a BCP 47 shape (\`${LANGUAGE_TAG.source}\`)`,
  },
};

/** The rule the fake enforces on one text field, and whether its length limit is the spec's. */
export interface TextRule extends FakeTextRule {
  readonly field: TextCreateField;
  readonly nullable: boolean;
  readonly from: 'spec' | 'fake';
}

/** Every text field's rule, in the table's order. */
export const TEXT_RULES: readonly TextRule[] = TEXT_CREATE_FIELDS.map((field) => {
  const spec: { max?: number; nullable?: boolean } = RESERVATION_FIELDS[field].create;
  const fake = FAKE_TEXT_RULES[field] ?? {};
  return {
    ...fake,
    field,
    max: spec.max ?? fake.max,
    nullable: Boolean(spec.nullable || fake.nullable),
    from: spec.max !== undefined ? 'spec' : 'fake',
  };
});

/** The text fields of a create or modify body, checked; a field left out is absent from the result. */
export function readGuestTexts(body: Record<string, unknown>, fields: FieldCollector): Partial<GuestTexts> {
  const texts: Partial<GuestTexts> = {};
  for (const rule of TEXT_RULES) {
    const value = fields.string(body, rule.field, { max: rule.max, nullable: rule.nullable });
    if (value === undefined) continue;
    if (
      typeof value === 'string' &&
      rule.pattern &&
      !(rule.emptyAllowed && value === '') &&
      !rule.pattern.test(value)
    )
      fields.add(rule.field, rule.message ?? 'Invalid value.');
    else texts[rule.field] = value;
  }
  return texts;
}

/** The stored text fields of a new booking: what was sent, else the fake's default. */
export function newGuestTexts(sent: Partial<GuestTexts>): GuestTexts {
  const texts = {} as GuestTexts;
  for (const rule of TEXT_RULES) texts[rule.field] = sent[rule.field] ?? rule.omitted ?? null;
  return texts;
}

/** Writes the fields a modification sent over the stored ones. */
export function applyGuestTexts(record: GuestTexts, sent: Partial<GuestTexts>): void {
  for (const rule of TEXT_RULES) {
    const value = sent[rule.field];
    if (value !== undefined) record[rule.field] = value;
  }
}
