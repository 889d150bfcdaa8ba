// What more than one part of the bench (bench/parts/*.mjs, run by bench/run.mjs in turn) shares: the
// system's name, ports and broker, and how a ratio is rounded.
//
// Each part is one async function of the context run.mjs builds once the system is seeded:
// { system, pools, fixture, scenarios, config, phase, rows, target, targets, saved, chosenReads }.
// A part pushes its table rows and targets as it goes, and sets its figures on `saved` (the results
// file's keys) as soon as each is measured, so that a later phase that fails still leaves them there.

export const NAME = 'recipes_bench';
export const PORT_OFFSET = 1100;
export const AMQP_URL = process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
export const ratio = (a, b) => +(a / b).toFixed(2);
