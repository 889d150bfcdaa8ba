import { once } from 'node:events';
import { createServer, type Server, Socket } from 'node:net';
import { amqpUrl } from '@recipes/testing';
import amqp from 'amqplib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { socketOf, writeFramesPerTurn } from '../src/frame-writes.js';

const nextTick = () => new Promise<void>((resolve) => process.nextTick(resolve));

describe('writeFramesPerTurn: the frames one turn writes leave together', () => {
  let server: Server;
  let received: Promise<string>;
  let client: Socket;

  beforeEach(async () => {
    server = createServer();
    received = new Promise((resolve) => {
      server.once('connection', (peer: Socket) => {
        let bytes = '';
        peer.setEncoding('utf8');
        peer.on('data', (chunk: string) => (bytes += chunk));
        peer.on('end', () => resolve(bytes));
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    client = new Socket().setNoDelay(true);
    client.connect(port, '127.0.0.1');
    await once(client, 'connect');
  });
  afterEach(async () => {
    client.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  it('holds every write of a turn until the next tick, then sends them all, in order', async () => {
    writeFramesPerTurn(client);
    client.write('method|');
    client.write('header|');
    expect(client.writableCorked).toBe(1);
    expect(client.writableLength).toBe('method|header|'.length);
    client.write('body|');
    expect(client.writableCorked).toBe(1);
    await nextTick();
    expect(client.writableCorked).toBe(0);
    // A later turn is held on its own, and the end sends what is still held.
    client.write('ack|');
    expect(client.writableCorked).toBe(1);
    client.end('close');
    expect(await received).toBe('method|header|body|ack|close');
  });

  it('is what makes the difference: left alone, a socket writes each frame at once', async () => {
    client.write('method|');
    expect(client.writableCorked).toBe(0);
    client.end('body');
    expect(await received).toBe('method|body');
  });
});

describe('socketOf', () => {
  it('finds the socket of an amqplib connection, and nothing in what is not one', async () => {
    const connection = await amqp.connect(amqpUrl());
    try {
      expect(socketOf(connection)).toBeInstanceOf(Socket);
      expect(socketOf({})).toBeUndefined();
      expect(socketOf(undefined)).toBeUndefined();
    } finally {
      await connection.close();
    }
  });
});
