export { default as authPlugin, callerOf, TOKEN_ALGORITHM, type AuthSettings, type Caller } from './plugin.js';
export { EndedSessions, type EndedSessionReason, type SessionEnd, type SessionToken } from './ended-sessions.js';
export { generateSigningKeyPair } from './keys.js';
export { type IssueToken, tokenIssuer, type TokenSettings, type TokenSubject } from './tokens.js';
