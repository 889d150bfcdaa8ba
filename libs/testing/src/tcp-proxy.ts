import { createServer, connect, type Socket } from 'node:net';

export interface TcpProxy {
  /** `target` with its host and port replaced by the proxy's. */
  url: string;
  /** Drops every connection and refuses new ones: the server seems to be down. */
  cut(): void;
  /** Accepts connections again: the server seems to be back. */
  restore(): void;
  close(): Promise<void>;
}

/**
 * A TCP proxy in front of a real server (RabbitMQ, PostgreSQL), so a test can take that server away
 * from one client and give it back without stopping the server others share. It listens on `listenOn`
 * (loopback unless given, e.g. an address that test hosts in network namespaces reach).
 */
export async function createTcpProxy(
  target: string,
  { listenOn = '127.0.0.1' }: { listenOn?: string } = {},
): Promise<TcpProxy> {
  const targetUrl = new URL(target);
  const sockets = new Set<Socket>();
  let open = true;

  const server = createServer((client) => {
    if (!open) return client.destroy();
    const upstream = connect({ host: targetUrl.hostname, port: Number(targetUrl.port) });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, listenOn, resolve));
  const { port } = server.address() as { port: number };
  const url = new URL(target);
  url.hostname = listenOn;
  url.port = String(port);

  return {
    url: url.toString(),
    cut: () => {
      open = false;
      for (const socket of sockets) socket.destroy();
    },
    restore: () => {
      open = true;
    },
    close: async () => {
      open = false;
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
