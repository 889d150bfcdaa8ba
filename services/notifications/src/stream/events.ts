import { sessionEndedSchema } from '@recipes/contracts';
import { z } from 'zod';
import { notificationSchema } from '../schemas.js';
import { sse } from './sse.js';

/**
 * What each event of the notification stream carries on its `data:` line (JSON), by the event's name
 * (docs/api.md §9): the one place the stream's events are defined. The stream writes them only through
 * `streamEvent`, and the OpenAPI document describes them from here.
 */
export const streamEventData = {
  notification: notificationSchema,
  unread_count: z.object({ count: z.number().int().nonnegative() }),
  /** A notification withdrawn (its comment deleted, its author blocked…): the client removes it. */
  retracted: z.object({ id: z.uuid() }),
  /** `ended`: the session had ended by the time the stream was opened. */
  session_ended: z.object({ reason: z.enum([...sessionEndedSchema.shape.reason.options, 'ended']) }),
  /** More than 1,000 missed: the client reloads its list. */
  reset: z.object({}),
  /** A sixth stream of the user took this one's place. */
  replaced: z.object({}),
};

export type StreamEventName = keyof typeof streamEventData;
export type SessionEndReason = z.infer<typeof streamEventData.session_ended>['reason'];
export const streamEventNames = Object.keys(streamEventData) as StreamEventName[];

/** The frame of event `name`, with `id` when it has one (a notification's, or the newest one's on `unread_count`). */
export function streamEvent<Name extends StreamEventName>(
  name: Name,
  data: z.input<(typeof streamEventData)[Name]>,
  id?: string,
): string {
  return sse.event(name, data, id);
}

const notificationExample = (notificationSchema.meta()?.examples as [z.input<typeof notificationSchema>])[0];

/** An event of each kind as a stream sends it: each schema's example in the document. */
const examples: { [Name in StreamEventName]: { id?: string; data: z.input<(typeof streamEventData)[Name]> } } = {
  notification: { id: notificationExample.id, data: notificationExample },
  unread_count: { id: notificationExample.id, data: { count: 3 } },
  retracted: { data: { id: notificationExample.id } },
  session_ended: { data: { reason: 'logout' } },
  reset: { data: {} },
  replaced: { data: {} },
};

/** A name such as `unread_count` as a schema name: `UnreadCount`. */
const pascal = (name: string) =>
  name.replace(/(^|_)([a-z])/g, (_, _sep: string, letter: string) => letter.toUpperCase());

/**
 * The stream as the OpenAPI document describes it: each event one of these, named `NotificationStream<Event>Event`,
 * with `event` its `event:` line, `id` its `id:` line where it has one and `data` its `data:` line, parsed. A
 * generator (openapi-typescript) makes of it a union told apart by `event`.
 */
export const notificationStreamEventSchema = z
  .discriminatedUnion(
    'event',
    streamEventNames.map((name) =>
      z
        .object({ event: z.literal(name), id: z.string().optional(), data: streamEventData[name] })
        .meta({ id: `NotificationStream${pascal(name)}Event`, examples: [{ event: name, ...examples[name] }] }),
    ) as unknown as [z.ZodObject, ...z.ZodObject[]],
  )
  .meta({
    id: 'NotificationStreamEvent',
    examples: [{ event: 'notification', ...examples.notification }],
    description:
      'One event of the stream: the frame `id: <id>` (where given), `event: <event>`, `data: <data as JSON>`. ' +
      'Comments (`: keep-alive`) and `retry:` frames carry no event.',
  });
