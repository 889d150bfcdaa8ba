import { tracingCost } from '../tracing.mjs';

/** `tracing`: one read, one mentioned comment and its stream frame, tracing off and on. */
export async function tracingPart({ phase, saved }) {
  // Systems of their own (bench/tracing.mjs), tracing off then on, every span sampled: the worst case.
  saved.tracingFigures = await phase(
    'tracing off and on: one read, one mentioned comment and its stream frame, one at a time',
    () => tracingCost(),
  );
}
