import { z } from 'zod';

/** Building blocks for service config schemas. */
export const env = {
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback),
  url: (fallback: string) => z.url().default(fallback),
  /** One URL, or several comma-separated (the nodes of a cluster), each of one of `protocols`. */
  urls: (fallback: string, protocols: RegExp) =>
    z
      .string()
      .default(fallback)
      .transform((value) =>
        value
          .split(',')
          .map((url) => url.trim())
          .filter((url) => url !== '')
          .join(','),
      )
      .pipe(
        z
          .string()
          .refine(
            (value) =>
              value !== '' && value.split(',').every((url) => z.url({ protocol: protocols }).safeParse(url).success),
            'needs one or more URLs, comma-separated',
          ),
      ),
  string: (fallback: string) => z.string().min(1).default(fallback),
  positiveInt: (fallback: number) => z.coerce.number().int().positive().default(fallback),
  /** Comma-separated positive integers, at least one. */
  positiveInts: (fallback: string) =>
    z
      .string()
      .default(fallback)
      .transform((value) => value.split(',').map((item) => Number(item.trim())))
      .pipe(z.array(z.number().int().positive()).min(1)),
  /** Peers whose X-Forwarded-For is believed, in proxy-addr syntax (comma-separated); `none` believes nobody's. */
  trustedProxies: (fallback: string) =>
    z
      .string()
      .min(1)
      .default(fallback)
      .transform((value): string | false => (value.trim() === 'none' ? false : value)),
  /** "true"/"false", "1"/"0", "yes"/"no", "on"/"off". */
  flag: (fallback: boolean) => z.stringbool().default(fallback),
  logLevel: () => z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
};
