import { type App, type AppSettings, createApp } from './app.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The service's routes for the other services only, on a listener of their own (see `internalApp`). */
    internalServer?: FastifyInstance;
  }
}

/**
 * A second app beside `app`, for the routes only the other services call (`/internal/...`). It listens on a
 * port of its own (`INTERNAL_PORT`), which the gateway never targets and a network policy keeps to the
 * system's own pods: no spelling of a public URL can reach these routes, because the public listener does
 * not have them at all. Same errors, request ids and logging as `app`; it closes with `app`.
 */
export async function internalApp(
  app: App,
  settings: Pick<AppSettings, 'title' | 'logger' | 'readiness' | 'readinessCacheMs' | 'validateResponses'>,
): Promise<App> {
  const internal = await createApp({ ...settings, title: `${settings.title} (internal)` });
  app.decorate('internalServer', internal);
  app.addHook('onClose', async () => {
    await internal.close();
  });
  return internal;
}

/** The internal app made by `internalApp`; throws where there is none, as a test would want. */
export function internalServerOf(app: App): App {
  if (!app.internalServer) throw new Error('this app has no internal routes');
  return app.internalServer as App;
}
