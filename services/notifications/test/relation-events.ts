import {
  createEvent,
  type EventEnvelope,
  userBlocked,
  userMuted,
  type UserRelation,
  userUnblocked,
  userUnmuted,
} from '@recipes/contracts';

/** One change of a pair: a mute or a block started (`on`) or ended. */
export interface RelationStep {
  kind: 'mute' | 'block';
  on: boolean;
}

const definitions = { mute: [userUnmuted, userMuted], block: [userUnblocked, userBlocked] } as const;

/**
 * The events of `user`'s mutes and blocks of `target`, as the users service writes them: one per step that
 * changes something, each with the pair's whole state and the next revision, at the times `at` gives
 * (now by default).
 */
export function relationHistory(
  user: { id: string },
  target: { id: string },
  steps: RelationStep[],
  at: (step: number) => Date = () => new Date(),
): EventEnvelope<UserRelation>[] {
  const state = { muted: false, blocked: false, lastUnblockedAt: null as string | null };
  const events: EventEnvelope<UserRelation>[] = [];
  steps.forEach(({ kind, on }, index) => {
    const field = kind === 'mute' ? 'muted' : 'blocked';
    if (state[field] === on) return;
    const changedAt = at(index).toISOString();
    state[field] = on;
    if (kind === 'block' && !on) state.lastUnblockedAt = changedAt;
    const relation: UserRelation = {
      userId: user.id,
      targetId: target.id,
      ...state,
      revision: events.length + 1,
      changedAt,
    };
    events.push(
      createEvent(definitions[kind][on ? 1 : 0] as typeof userMuted, relation, {
        producer: 'users',
        correlationId: `test-${kind}`,
      }),
    );
  });
  return events;
}
