// What refusing an ended session's token adds to a request (docs/api.md §11.1): libs/auth's check of the
// ended sessions a service knows, beside the token verification every authenticated request already pays
// (fast-jwt's verifier, which @fastify/jwt runs). 10,000 ended sessions known, as after a busy quarter of
// an hour; the token checked is of a live session, the common case, which looks in both maps. Prints the
// nanoseconds of each per request and the check's share of the verification, in alternating rounds.
// Run alone: `nice node bench/micro/revocation-check.mjs`.
import { randomUUID } from 'node:crypto';
import { createVerifier } from 'fast-jwt';
import { EndedSessions, generateSigningKeyPair, tokenIssuer } from '@recipes/auth';

const ENDED = 10_000;
const ROUNDS = 3;
const CALLS = 200_000;

const { privateKey, publicKey } = generateSigningKeyPair();
const issue = tokenIssuer({ privateKey, issuer: 'recipes', audience: 'recipes-api', ttlSeconds: 900 });
const verify = createVerifier({
  key: publicKey,
  algorithms: ['EdDSA'],
  allowedIss: 'recipes',
  allowedAud: 'recipes-api',
  requiredClaims: ['sub', 'username', 'iat', 'exp', 'iss', 'aud'],
  // As libs/auth's plugin: a token verified once is served from the cache until it expires.
  cache: 10_000,
});
const token = issue({ id: randomUUID(), username: 'micro', sessionId: randomUUID() });
const claims = verify(token);

const ended = new EndedSessions();
const tokensExpireBy = new Date(Date.now() + 900_000).toISOString();
for (let i = 0; i < ENDED; i++) {
  ended.learn({
    userId: randomUUID(),
    sessionIds: [randomUUID()],
    notBefore: i % 10 === 0 ? new Date().toISOString() : null,
    tokensExpireBy,
  });
}

/** Nanoseconds per call of `work`, over `CALLS` calls. */
function timed(work) {
  let sink = 0;
  const start = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) if (work()) sink += 1;
  const ns = Number(process.hrtime.bigint() - start) / CALLS;
  if (sink < 0) console.log(sink);
  return ns;
}

const session = { userId: claims.sub, sessionId: claims.sid, issuedAt: claims.iat };
for (let round = 1; round <= ROUNDS; round++) {
  const verification = timed(() => verify(token));
  const check = timed(() => ended.refuses(session));
  console.log(
    `round ${round}: verify ${verification.toFixed(0)} ns, revocation check ${check.toFixed(1)} ns ` +
      `(${((100 * check) / verification).toFixed(2)} % of the verification)`,
  );
}
