import {
  commentCreated,
  commentsUserErased,
  commentDeleted,
  commentMentionCreated,
  commentMentionDeleted,
  commentUpdated,
} from '@recipes/contracts';
import type { PublishedEvent } from '@recipes/runtime';

/** Every event this service writes to its outbox, and where. */
export const published: PublishedEvent[] = [
  { event: commentCreated, from: '`add` in src/comments.ts' },
  { event: commentUpdated, from: '`edit` in src/comments.ts' },
  {
    event: commentDeleted,
    from: '`remove` in src/comments.ts, `removeCommentsOn` in src/deleted-targets.ts, `removeCommentsBy` in src/erasure.ts',
  },
  {
    event: commentMentionCreated,
    from: '`storingMentions` in src/mention-events.ts, for `add` and `edit` in src/comments.ts',
  },
  {
    event: commentMentionDeleted,
    from:
      'trigger `announce_mention_removal` on each mention store (migrations/003_edits_and_deletions.sql), ' +
      'through `write_event` (migrations/007_event_envelope.sql)',
  },
  { event: commentsUserErased, from: '`eraseUser` in @recipes/runtime, once src/erasure.ts has erased a deleted user' },
];
