import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { WakeUps } from '../src/wake-ups.js';

describe('WakeUps', () => {
  it('keeps a loop without a poll asleep until a notification, however long, and a polling one only until its poll', async () => {
    const wakeUps = new WakeUps(() => true);
    const ended: string[] = [];
    const untimed = wakeUps.sleep().then(() => ended.push('untimed'));
    const polling = wakeUps.sleep(20).then(() => ended.push('polling'));
    await polling;
    // The poll has come and gone: the untimed sleeper, with no timer of its own, is still asleep.
    await sleep(30);
    expect(ended).toEqual(['polling']);
    wakeUps.notify();
    await untimed;
    expect(ended).toEqual(['polling', 'untimed']);
  });

  it('ends an untimed sleep as the relay stops', async () => {
    let running = true;
    const wakeUps = new WakeUps(() => running);
    const asleep = wakeUps.sleep();
    running = false;
    wakeUps.wakeAll();
    await expect(asleep).resolves.toBeUndefined();
  });
});
