import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, env, parseConfig } from '../src/index.js';

const schema = z.object({ PORT: env.port(3000), DATABASE_URL: z.url(), VERBOSE: env.flag(false) });

describe('parseConfig', () => {
  it('applies defaults and coerces strings', () => {
    expect(parseConfig(schema, { DATABASE_URL: 'postgres://x@y/z', VERBOSE: 'yes' })).toEqual({
      PORT: 3000,
      DATABASE_URL: 'postgres://x@y/z',
      VERBOSE: true,
    });
  });

  it('names a missing variable on one line', () => {
    expect(() => parseConfig(schema, {})).toThrowError(
      new ConfigError(
        'Invalid configuration: DATABASE_URL is required (Invalid input: expected string, received undefined)',
      ),
    );
  });

  it('names every wrong variable in one line', () => {
    try {
      parseConfig(schema, { PORT: 'eighty', DATABASE_URL: 'nope' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const message = (error as Error).message;
      expect(message).not.toContain('\n');
      expect(message).toMatch(/^Invalid configuration: PORT: .*; DATABASE_URL: /);
    }
  });

  it('rejects an out-of-range port', () => {
    expect(() => parseConfig(schema, { PORT: '70000', DATABASE_URL: 'postgres://x@y/z' })).toThrow(/PORT: /);
  });
});
