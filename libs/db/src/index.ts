export * from './pool.js';
export * from './migrate.js';
export { SharedTransaction } from './ambient.js';
