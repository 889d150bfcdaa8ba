import { Socket } from 'node:net';

/**
 * amqplib writes each frame to its socket on its own: its multiplexer calls `write` once per frame, so a
 * batch of publishes, or the acks of the deliveries one turn settles, cost a syscall each (and, with
 * TCP_NODELAY, a packet each). Corked at the first write of a turn and uncorked on the next tick, the
 * socket sends them in one `writev`; nothing waits on a timer, so no frame leaves later than it would have.
 */
export function writeFramesPerTurn(socket: Socket): void {
  const write = socket.write;
  socket.write = function writeCorked(this: Socket, ...args: Parameters<Socket['write']>) {
    // Not corked yet: this is the turn's first frame.
    if (this.writableCorked === 0) {
      this.cork();
      process.nextTick(uncork, this);
    }
    return write.apply(this, args);
  } as Socket['write'];
}

const uncork = (socket: Socket) => socket.uncork();

/** The socket of an amqplib connection (`ChannelModel`), which its typings do not show; undefined if it has none. */
export function socketOf(connection: unknown): Socket | undefined {
  const stream = (connection as { connection?: { stream?: unknown } } | undefined)?.connection?.stream;
  return stream instanceof Socket ? stream : undefined;
}
