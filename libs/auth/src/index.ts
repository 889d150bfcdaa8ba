export { default as authPlugin, callerOf, TOKEN_ALGORITHM, type AuthSettings, type Caller } from './plugin.js';
export { generateSigningKeyPair } from './keys.js';
export { type IssueToken, tokenIssuer, type TokenSettings } from './tokens.js';
