export * from './pool.js';
export * from './migrate.js';
