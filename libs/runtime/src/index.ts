export type { BackendConfig } from './config.js';
export * from './definition.js';
export * from './service.js';
export {
  EndedSessions,
  endedSessionsMigrations,
  loadEndedSessions,
  recordSessionEnd,
  sessionEnds,
} from './ended-sessions.js';
export {
  deleteRowsOf,
  checkingErasedItself,
  droppingErased,
  erasedIdHash,
  eachIn,
  ERASURE_BATCH,
  type ErasureSettings,
  type ErasureStep,
  eraseUser,
  idsOf,
  retireItemsOf,
  userDeletedHandler,
} from './erasure.js';
