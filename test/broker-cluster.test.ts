import { brokerAdmin, dropDatabase, type RabbitCluster, startRabbitCluster } from '@recipes/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type StartedSystem, startSystem } from '../scripts/system.mjs';
import { jsonClient, type JsonCall } from './support/http.js';
import { type Account, create, register } from './support/world.js';

/**
 * The system on a three-node RabbitMQ cluster (quorum queues, every service given every node): while
 * mentioned comments are posted, one node is stopped and later started, then another. Every comment
 * posted becomes exactly one notification of the user it mentions, and no event is dead-lettered: the
 * outbox holds what was not confirmed and the relays publish it on a live node.
 */
const NAME = 'recipes_cluster';
const MENTIONED = 8;
const PACE_MS = 100;
const WORKLOAD_MS = 16_000;

let cluster: RabbitCluster;
let system: StartedSystem;
let api: JsonCall;
let author: Account;
let mentioned: Account[];

beforeAll(async () => {
  cluster = await startRabbitCluster({ name: NAME, basePort: 5691 });
  system = await startSystem({
    name: NAME,
    portOffset: 6000,
    // Beside three broker nodes still settling, on two cores.
    readyWithinMs: 90_000,
    databaseUrl: inject('databaseUrl'),
    amqpUrl: cluster.url,
    env: { RATE_LIMIT_ENABLED: 'false', COMMENT_LIMIT_PER_MINUTE: '100000', NOTIFICATION_BUDGET_PER_HOUR: '100000' },
  });
  api = jsonClient(`${system.urlOf('gateway')}/api`);
  author = await register(api, 'cluster_author');
  mentioned = [];
  for (let i = 0; i < MENTIONED; i++) mentioned.push(await register(api, `cluster_user_${i}`));
}, 180_000);

afterAll(async () => {
  await system?.stop();
  await cluster?.close();
  await dropDatabase(inject('databaseUrl'), NAME);
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Stops node 1 (where every service connected first), starts it again, then does the same to node 2. */
async function failOverTwice(): Promise<string[]> {
  const done: string[] = [];
  for (const node of [cluster.nodes[0]!, cluster.nodes[1]!]) {
    await pause(2_000);
    await node.stop();
    done.push(`${node.name} stopped`);
    await pause(3_000);
    await node.start();
    done.push(`${node.name} started`);
  }
  return done;
}

/** Messages ready in each consumer's dead-letter queue, asked of a node that is up (0 for one that does not exist). */
async function deadLetters(): Promise<Record<string, number>> {
  const admin = await brokerAdmin(cluster.nodes[2]!.url);
  try {
    const services = ['comments', 'content', 'collections', 'notifications'];
    return Object.fromEntries(
      await Promise.all(
        services.map(async (service) => [service, (await admin.messageCount(`recipes.${NAME}.${service}.dlq`)) ?? 0]),
      ),
    );
  } finally {
    await admin.close();
  }
}

describe('on a three-node broker cluster', () => {
  it('notifies every mentioned comment once while one node and then another stops and comes back', async () => {
    const recipe = await create(
      api,
      '/recipes',
      { title: 'Clustered', cameraModel: 'X-T5', filmSimulation: 'Provia' },
      author,
      'recipe',
    );
    const faults = failOverTwice();
    const posted = new Map<string, number>();
    const failures: string[] = [];
    const requests: Promise<void>[] = [];
    for (let i = 0, start = Date.now(); Date.now() - start < WORKLOAD_MS; i++) {
      const who = i % MENTIONED;
      requests.push(
        api(
          'POST',
          `/recipes/${recipe.id}/comments`,
          { content: `Lovely, @${mentioned[who]!.user.username} (${i})` },
          author.token,
        ).then((response) => {
          if (response.status === 201) posted.set(response.body.comment.id, who);
          else failures.push(`${response.status} ${response.text}`);
        }),
      );
      await pause(PACE_MS);
    }
    await Promise.all(requests);
    expect(await faults).toHaveLength(4);
    // Posting a comment touches only PostgreSQL: the broker's faults never reach the client.
    expect(failures).toEqual([]);
    expect(posted.size).toBeGreaterThan(100);

    const expected = mentioned.map((_, who) =>
      [...posted]
        .filter(([, to]) => to === who)
        .map(([commentId]) => commentId)
        .sort(),
    );
    const notified = async (who: number) => {
      const { body } = await api('GET', '/notifications?limit=100', undefined, mentioned[who]!.token);
      return (body.data as Array<{ commentId?: string }>).map((n) => n.commentId).sort();
    };
    for (let who = 0; who < MENTIONED; who++) {
      // Each comment once: a doubled one, or one missing, never settles into the list of those posted.
      await expect.poll(() => notified(who), { timeout: 60_000, interval: 500 }).toEqual(expected[who]);
    }
    expect(await deadLetters()).toEqual({ comments: 0, content: 0, collections: 0, notifications: 0 });
  }, 180_000);
});
