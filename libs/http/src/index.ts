export * from './app.js';
export { sendProblem } from './errors-plugin.js';
export type { ReadinessChecks } from './health.js';
export * from './problem.js';
export { REQUEST_ID_HEADER } from './request-id.js';
export * from './server.js';
export * from './schemas.js';
export * from './internal-app.js';
export { isDependencyUnavailable } from './unavailable.js';
