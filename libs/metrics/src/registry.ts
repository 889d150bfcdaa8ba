import { Registry } from 'prom-client';

export { Registry };

/** Every metric this project defines starts with it, so they sort together apart from Node's own. */
export const METRIC_PREFIX = 'recipes_';
