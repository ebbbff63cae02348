import { generateKeyPair, SignJWT, base64url } from 'jose';
import { KeyObject, sign as nodeSign, randomBytes } from 'node:crypto';
const { privateKey } = await generateKeyPair('ES256', { extractable: true });
const ko = KeyObject.from(privateKey as CryptoKey);
const N = 20000;
async function joseRun() {
  const t = performance.now(); let inflight: Promise<string>[] = [];
  for (let i = 0; i < N; i++) { inflight.push(new SignJWT({ a: 1 }).setProtectedHeader({ alg: 'ES256', kid: 'k', typ: 'at+jwt' }).setIssuedAt().setJti(randomBytes(16).toString('base64url')).sign(privateKey)); if (inflight.length >= 64) { await Promise.all(inflight); inflight = []; } }
  await Promise.all(inflight); return N / ((performance.now() - t) / 1000);
}
function nodeRun() {
  const t = performance.now();
  const header = Buffer.from(JSON.stringify({ alg: 'ES256', kid: 'k', typ: 'at+jwt' })).toString('base64url');
  for (let i = 0; i < N; i++) { const p = Buffer.from(JSON.stringify({ a: 1, iat: 1, jti: randomBytes(16).toString('base64url') })).toString('base64url'); const input = `${header}.${p}`; const sig = nodeSign('sha256', Buffer.from(input), { key: ko, dsaEncoding: 'ieee-p1363' }); const tok = `${input}.${sig.toString('base64url')}`; }
  return N / ((performance.now() - t) / 1000);
}
for (let r = 0; r < 2; r++) console.log('jose', Math.round(await joseRun()), 'node sync', Math.round(nodeRun()));
