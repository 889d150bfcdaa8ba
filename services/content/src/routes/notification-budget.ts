import { spendBudget } from '@recipes/db';
import { answerSpending, type LimitPolicy } from '@recipes/http';
import type { FastifyReply } from 'fastify';
import type { SpendNotifications } from '../tagging.js';

/**
 * Pays for what a request notifies from the caller's budget in this service's `budgets` table, in the
 * request's transaction: announced on `reply`, or 429 past the budget.
 */
export const spendingOn =
  (budget: LimitPolicy, reply: FastifyReply): SpendNotifications =>
  async (db, actorId, count) =>
    answerSpending(reply, budget, await spendBudget(db, budget, actorId, count));
