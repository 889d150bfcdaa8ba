import { connect } from 'node:net';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { amqpUrl, createTcpProxy, createTestDatabase, eventually, uniqueName } from '../src/index.js';

describe('createTestDatabase', () => {
  it('gives each caller an empty database of its own, and drops it', async () => {
    const [first, second] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    expect(first.url).not.toBe(second.url);
    const client = new pg.Client({ connectionString: first.url });
    await client.connect();
    await client.query('CREATE TABLE only_here (id int)');
    await client.end();

    const other = new pg.Client({ connectionString: second.url });
    await other.connect();
    const { rows } = await other.query(
      "SELECT count(*)::int AS n FROM information_schema.tables WHERE table_name = 'only_here'",
    );
    await other.end();
    expect(rows[0].n).toBe(0);

    await Promise.all([first.drop(), second.drop()]);
    const gone = new pg.Client({ connectionString: first.url });
    await expect(gone.connect()).rejects.toThrow(/does not exist/);
  });
});

describe('uniqueName', () => {
  it('never repeats', () => {
    const names = new Set(Array.from({ length: 1000 }, () => uniqueName('q')));
    expect(names.size).toBe(1000);
  });
});

describe('createTcpProxy', () => {
  const opens = (url: string) =>
    new Promise<boolean>((resolve) => {
      const { hostname, port } = new URL(url);
      const socket = connect({ host: hostname, port: Number(port) });
      // The broker speaks first only after the AMQP header; an open socket that stays open is enough.
      socket.once('connect', () => setTimeout(() => resolve(!socket.destroyed), 100));
      socket.once('error', () => resolve(false));
      socket.once('close', () => resolve(false));
    });

  it('passes connections through, drops them when cut, and takes new ones when restored', async () => {
    const proxy = await createTcpProxy(amqpUrl());
    expect(await opens(proxy.url)).toBe(true);
    proxy.cut();
    expect(await opens(proxy.url)).toBe(false);
    proxy.restore();
    expect(await opens(proxy.url)).toBe(true);
    await proxy.close();
  });
});

describe('eventually', () => {
  it('returns the first defined value, and gives up after the timeout', async () => {
    let calls = 0;
    expect(await eventually(async () => (++calls >= 3 ? 'done' : undefined), 1_000, 1)).toBe('done');
    await expect(eventually(async () => undefined, 50, 5)).rejects.toThrow(/not met within 50 ms/);
  });
});
