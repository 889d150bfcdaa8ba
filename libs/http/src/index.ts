export * from './app.js';
export { sendProblem } from './errors-plugin.js';
export { healthResponses, type ReadinessChecks } from './health.js';
export * from './problem.js';
export { REQUEST_ID_HEADER, requestIdFor } from './request-id.js';
export { logWhenClosedByClient } from './request-line.js';
export * from './server.js';
export * from './schemas.js';
export * from './internal-app.js';
export { NOT_TAKEN_HEADER, stopTaking } from './not-taken.js';
export { isDependencyUnavailable } from './unavailable.js';
export { answeredNotModified, callerTag } from './conditional.js';
export * from './rate-limits.js';
export {
  connectSharedStore,
  type SharedStore,
  type SharedStoreSettings,
  sharedStoreFor,
  type SharedStoreSlot,
  sharedStoreSlot,
} from './shared-store.js';
export { sharedAnswer } from './shared-answer.js';
export { dualProtocolServer, HTTP2_MAX_SESSION_MEMORY_MB, HTTP2_SESSION_SETTINGS } from './cleartext-http2.js';
export { JSON_DEPTH_LIMIT, nestsDeeperThan } from './json-body.js';
export { listLinkHeader, listLinks, withListLinks, withPlace } from './links.js';
export type { LocationOf } from './location.js';
export { bodySent, undeclaredBody } from './optional-body.js';
export { pathOf } from './url-path.js';
