export * from './pool.js';
export { identifier, join, query, type Sql, sql } from './sql.js';
export * from './migrate.js';
export * from './page.js';
export { SharedTransaction } from './ambient.js';
export * from './budgets.js';
export { writeInBatches } from './write-batches.js';
export { isTransientDatabaseError } from './transient.js';
