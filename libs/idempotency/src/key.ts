import { z } from 'zod';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
/** On a response that repeats the first one to the same key. */
export const REPLAYED_HEADER = 'idempotent-replayed';

/** 1–255 visible ASCII characters: no spaces, so two keys a client sent (joined with ", ") never pass as one. */
export const KEY_PATTERN = /^[\x21-\x7E]{1,255}$/;
export const KEY_RULE = 'must be 1–255 visible ASCII characters';

/**
 * The route's `headers` schema: validates the key (400 with an `errors` entry for the header) and
 * documents it. Loose, since every other header passes through untouched.
 */
export const idempotencyKeyHeaders = z.looseObject({
  [IDEMPOTENCY_KEY_HEADER]: z
    .string()
    .regex(KEY_PATTERN, KEY_RULE)
    .optional()
    .meta({
      description:
        'Makes a retry safe: a later request of the caller with the same key, method, path and body within 24 hours ' +
        'gets the first response again (with `Idempotent-Replayed: true`) and has no second effect. ' +
        'The same key with another path or body is 422; while the first request runs, 409. 5xx and 429 answers are not kept.',
    }),
});
