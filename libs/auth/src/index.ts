export { default as authPlugin, callerOf, TOKEN_ALGORITHM, type AuthSettings, type Caller } from './plugin.js';
export { generateSigningKeyPair } from './keys.js';
