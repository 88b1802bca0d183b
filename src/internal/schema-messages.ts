/**
 * The English messages of the SDK's schemas. The schemas use zod's tree-shakeable form
 * (`zod/mini`), which loads no locale, so without this every refusal would read "Invalid input".
 * Each parse passes these messages as its own error map, behind whatever the application set with
 * `z.config(...)`: the same message as zod's full form gives, and nothing global is changed.
 * @module
 */
import english from 'zod/v4/locales/en.js';
import { config, type core } from 'zod/mini';

let englishMessages: core.$ZodErrorMap | undefined;

/** The message of an issue: the application's own map or locale first, then zod's English. */
function message(issue: core.$ZodRawIssue): string | { message: string } | undefined | null {
  const configured = config();
  return (
    configured.customError?.(issue) ??
    configured.localeError?.(issue) ??
    (englishMessages ??= english().localeError)(issue)
  );
}

/** Parse parameters giving the English messages, keeping a map the caller passed in front of them. */
export function withMessages<Params extends { error?: core.$ZodErrorMap | undefined }>(
  params?: Params,
): Params & { error: core.$ZodErrorMap } {
  const own = params?.error;
  return {
    ...(params as Params),
    error: own ? (issue) => own(issue) ?? message(issue) : message,
  };
}

/** The parse parameters of the SDK's own checks. */
export const PARSE_PARAMS = { error: message } as const;
