import closeWithGrace from 'close-with-grace';
import type { App } from './app.js';

export interface ListenSettings {
  host: string;
  port: number;
  /** How long in-flight requests and handlers get to finish before the process exits anyway. */
  shutdownTimeoutMs: number;
}

/**
 * Listens, and on SIGTERM/SIGINT closes gracefully: the server stops accepting, in-flight requests
 * finish, then the app's onClose hooks stop consumers and relays and close pools.
 */
export async function listen(app: App, { host, port, shutdownTimeoutMs }: ListenSettings): Promise<void> {
  closeWithGrace({ delay: shutdownTimeoutMs }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'shutting down after an unexpected error');
    else app.log.info({ signal }, 'shutting down');
    await app.close();
  });
  await app.listen({ host, port });
}
