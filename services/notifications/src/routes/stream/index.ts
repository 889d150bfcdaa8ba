import { callerOf } from '@recipes/auth';
import { isUuid } from '@recipes/contracts';
import {
  type App,
  HttpError,
  logWhenClosedByClient,
  problemResponses,
  REQUEST_ID_HEADER,
  unauthorized,
} from '@recipes/http';
import type { Logger } from '@recipes/logging';
import { z } from 'zod';
import { notificationStreamEventSchema } from '../../stream/events.js';
import { SSE_HEADERS } from '../../stream/sse.js';
import { type Streams, TICKET_TTL_SECONDS, type TicketHolder } from '../../stream/streams.js';

const streamQuery = z.object({
  /** From `POST /stream-tickets`, for a browser's `EventSource`, which cannot send a header. */
  ticket: z.string().min(1).max(128).optional(),
  /** As the `Last-Event-ID` header, for clients that cannot set it. */
  lastEventId: z.string().max(64).optional(),
});

const ticketResponse = z.object({ ticket: z.string(), expiresIn: z.number().int() });

/** The caller's real-time notifications: `/api/notifications/stream` and its tickets (docs/api.md §9). */
export default async function streamRoutes(app: App, { streams }: { streams: Streams }) {
  app.post(
    '/stream-tickets',
    {
      onRequest: app.auth.required,
      config: { location: ({ ticket }) => `/api/notifications/stream?ticket=${encodeURIComponent(ticket)}` },
      schema: {
        summary: `A single-use ticket that opens the caller’s notification stream, valid ${TICKET_TTL_SECONDS} s`,
        operationId: 'createNotificationStreamTicket',
        tags: ['notifications'],
        security: [{ bearerAuth: [] }],
        response: { 201: ticketResponse, ...problemResponses(401, 503) },
      },
    },
    async (request, reply) => {
      const { id, session } = callerOf(request);
      const ticket = await streams.issueTicket(session ? { recipientId: id, session } : { recipientId: id });
      return reply.code(201).send({ ticket, expiresIn: TICKET_TTL_SECONDS });
    },
  );

  app.get(
    '/stream',
    {
      schema: {
        summary: 'The caller’s notifications as they happen (Server-Sent Events)',
        operationId: 'streamNotifications',
        description:
          'Authenticated by a bearer token or by `ticket` (single use; a used one only resumes, as EventSource reconnects by itself: with the ' +
          '`Last-Event-ID` header naming an event its stream sent, within 2 minutes of that stream’s end). Events (`NotificationStreamEvent`): ' +
          '`notification` (id = the notification’s id), `unread_count` (the first one with the id of the newest notification), `retracted` ' +
          '(a notification withdrawn: remove it), `reset` (more than 1,000 missed: reload the list), `replaced` (a sixth stream opened), ' +
          '`session_ended` (the session of the token that opened it ended: the stream closes). Resumes after `Last-Event-ID`.',
        tags: ['notifications'],
        security: [{ bearerAuth: [] }, {}],
        querystring: streamQuery,
        headers: z.object({ 'last-event-id': z.string().max(64).optional() }).loose(),
        response: {
          200: {
            description: 'A `text/event-stream` that stays open',
            content: { 'text/event-stream': { schema: notificationStreamEventSchema } },
          },
          ...problemResponses(400, 401, 503),
        },
      },
    },
    async (request, reply) => {
      const lastEventId = request.headers['last-event-id'] ?? request.query.lastEventId;
      // A bearer token was checked by the auth plugin already. A fresh ticket is used up here. A used one
      // opens its stream again only to resume it, as a browser's EventSource does by itself after a cut,
      // sending the id of the last event it got in the `Last-Event-ID` header: an id that travels only in
      // the stream and in that header, never in a URL, so that a URL read where it was written down (a log,
      // a proxy's) is not enough.
      const { ticket } = request.query;
      const { caller } = request;
      let holder: TicketHolder | undefined =
        caller && (caller.session ? { recipientId: caller.id, session: caller.session } : { recipientId: caller.id });
      let resumeAfter: number | undefined;
      let byTicket: string | undefined;
      if (holder === undefined && ticket !== undefined) {
        holder = await streams.redeemTicket(ticket);
        const header = request.headers['last-event-id'];
        if (holder === undefined && header !== undefined && isUuid(header)) {
          const resumed = await streams.resumeByTicket(ticket, header);
          if (resumed) ({ resumeAfter, ...holder } = resumed);
        }
        if (holder !== undefined) byTicket = ticket;
      }
      if (holder === undefined) {
        throw ticket === undefined
          ? unauthorized('TOKEN_MISSING', 'A bearer token or a stream ticket is required')
          : unauthorized('TOKEN_INVALID', 'The stream ticket is not valid: take another');
      }
      // A ticket outlives the check of the token that took it: its session may have ended since.
      const ended = streams.sessionEndOf(holder);
      if (ended) throw unauthorized(ended);
      const { recipientId } = holder;

      if (lastEventId !== undefined && resumeAfter === undefined) {
        resumeAfter = isUuid(lastEventId) ? await streams.resumePoint(recipientId, lastEventId) : undefined;
        if (resumeAfter === undefined) {
          throw new HttpError(400, 'The request is not valid', [
            { path: 'Last-Event-ID', message: 'is not one of your notifications' },
          ]);
        }
      }

      // From here on the response is the stream's, written as events happen.
      reply.hijack();
      logWhenClosedByClient(request, reply);
      reply.raw.writeHead(200, { ...SSE_HEADERS, [REQUEST_ID_HEADER]: request.id });
      await streams.open(holder, reply.raw, resumeAfter, request.log as Logger, request.id, byTicket);
    },
  );
}
