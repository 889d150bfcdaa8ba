// The architecture's floor's third process (bench/reference/write-path.mjs): what the content service does
// with a `comment.created`, and nothing more: the recipe's comment count, kept in a table of its own, each
// comment counted once (keyed by its id, as services/content/src/repository/comments.ts `countComments`,
// so a redelivery changes nothing without an inbox row), one statement an event (the service batches them).
import { declareConsumerQueue } from '../../libs/messaging/dist/topology.js';
import { statement } from './common.mjs';
import { consumeEvents } from './write-path-broker.mjs';

const countComment = statement(
  'count-comment',
  `WITH counted AS (
     INSERT INTO recipe_comments (comment_id, recipe_id) VALUES ($1, $2)
     ON CONFLICT (comment_id) DO NOTHING RETURNING recipe_id)
   UPDATE comment_counts SET comment_count = comment_count + 1 FROM counted WHERE comment_counts.recipe_id = counted.recipe_id`,
);

/** The counting role, consuming `types` (`comment.created`) on `queue`. */
export async function startCounts(_app, { pool, connection, exchange, queue, types }) {
  const channel = await connection.createChannel();
  await declareConsumerQueue(channel, exchange, queue, types);
  await consumeEvents(channel, queue, async ({ data }) => {
    if (data.targetType === 'recipe') await pool.query(countComment(data.id, data.targetId));
  });
}
