import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, realpath, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AesGcmSecretSealer, sealingKeyId } from '../../src/adapters/crypto/secret-sealer.js';
import { migrate, openDatabase } from '../../src/adapters/knex/database.js';
import { loadSecretsKey } from '../../src/adapters/knex/secrets-key.knex.js';
import { signingKeyContext } from '../../src/adapters/knex/signing-key-store.knex.js';
import { loadConfig } from '../../src/bootstrap/config.js';
import type { TestApp } from '../support/app.js';
import { databaseUrl } from '../support/database.js';
import { adminQuery, spawnServer, startAppOnOwnPool, type ServerProcess } from '../support/reliability.js';
import { freePort } from '../../scripts/private-postgres.js';

interface Demo {
  apiKey: string;
  wallet: { clientId: string; clientSecret: string; user: { userId: string } };
}

interface KeyRow {
  kid: string;
  private_jwk: string | null;
  sealed_private_jwk: string | null;
  public_jwk: string;
}

const base64 = (key: Buffer): string => key.toString('base64');

/** The kid in a JWT's header. */
const kidOf = (jwt: string): string => (JSON.parse(Buffer.from(jwt.split('.')[0]!, 'base64url').toString()) as { kid: string }).kid;

async function machineToken(url: string, demo: Demo): Promise<string> {
  const basic = Buffer.from(`${demo.wallet.clientId}:${demo.wallet.clientSecret}`).toString('base64');
  const res = await fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  expect(res.status, await res.clone().text()).to.equal(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** The status of a wallet read with `token`: 200 when the token verifies. */
async function readUser(url: string, demo: Demo, token: string): Promise<number> {
  return (await fetch(`${url}/users/${demo.wallet.user.userId}`, { headers: { authorization: `Bearer ${token}` } })).status;
}

/** Every text the signing-key rows hold, each checked as a private JWK would be found by someone reading them. */
function expectNoPrivateJwk(rows: readonly KeyRow[]): void {
  expect(rows).to.not.be.empty;
  for (const row of rows) {
    const texts = Object.values(row).filter((v): v is string => typeof v === 'string');
    for (const text of texts) {
      expect(text, `row ${row.kid}`).to.not.match(/"d"\s*:/);
      let parsed: unknown = null;
      try {
        parsed = JSON.parse(text);
      } catch {
        // Not JSON: the sealed form.
      }
      if (parsed !== null && typeof parsed === 'object') expect(parsed, `row ${row.kid}`).to.not.have.property('d');
    }
  }
}

const signingKeyRows = (url: string): Promise<KeyRow[]> =>
  adminQuery<KeyRow>(
    url,
    `SELECT kid, private_jwk::text AS private_jwk, sealed_private_jwk, public_jwk::text AS public_jwk FROM token_signing_keys`,
  );

async function startFails(url: string, env: Record<string, string>): Promise<Error> {
  let app: TestApp | null = null;
  try {
    app = await startAppOnOwnPool(url, env);
  } catch (err) {
    return err as Error;
  } finally {
    await app?.stop();
  }
  throw new Error('the service started');
}

/** A database of its own on the test server, dropped after the tests. */
function ownDatabases(): { create: (label: string) => Promise<string> } {
  const made: { server: string; name: string }[] = [];
  after(async () => {
    for (const { server, name } of made) await adminQuery(server, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
  });
  return {
    create: async (label) => {
      const server = (await databaseUrl())!;
      const name = `${new URL(server).pathname.slice(1)}_${label}_${process.pid}`;
      await adminQuery(server, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await adminQuery(server, `CREATE DATABASE "${name}"`);
      made.push({ server, name });
      const url = new URL(server);
      url.pathname = `/${name}`;
      return url.toString();
    },
  };
}

describe('stored secrets sealed with the operator’s key (SECRETS_KEY)', function () {
  this.timeout(300_000);
  const databases = ownDatabases();
  before(async function () {
    if ((await databaseUrl()) === null) this.skip();
  });

  it('when the service has issued a token, then no signing-key row holds a private key in clear, and after a restart with the same key the token verifies and the same key signs', async () => {
    const url = await databases.create('seal');
    const key = randomBytes(32);
    let app = await startAppOnOwnPool(url, { SECRETS_KEY: base64(key) });
    const demo = (await app.service.core.admin.seedDemo.execute()) as unknown as Demo;
    const token = await machineToken(app.url, demo);
    expect(await readUser(app.url, demo, token)).to.equal(200);
    await app.stop();

    const rows = await signingKeyRows(url);
    expectNoPrivateJwk(rows);
    for (const row of rows) {
      expect(row.private_jwk).to.equal(null);
      expect(row.sealed_private_jwk, 'sealed under the configured key').to.match(new RegExp(`^v1\\.${sealingKeyId(key)}\\.`));
    }
    expect(await adminQuery(url, 'SELECT id FROM webhook_secret_keys'), 'no key kept in the database').to.deep.equal([]);

    app = await startAppOnOwnPool(url, { SECRETS_KEY: key.toString('hex') });
    try {
      expect(await readUser(app.url, demo, token), 'a token issued before the restart').to.equal(200);
      expect(kidOf(await machineToken(app.url, demo)), 'the same signing key').to.equal(kidOf(token));
    } finally {
      await app.stop();
    }
  });

  it('when the service starts with another key than its signing keys were sealed with, then the start fails saying so and no new signing key is made', async () => {
    const url = await databases.create('wrong');
    const key = randomBytes(32);
    const app = await startAppOnOwnPool(url, { SECRETS_KEY: base64(key) });
    await app.stop();
    const before = await signingKeyRows(url);

    const wrong = await startFails(url, { SECRETS_KEY: base64(randomBytes(32)) });
    expect(wrong.message).to.match(/signing keys .* sealed with another key \(id [0-9a-f]{8}\)/);
    expect(wrong.message).to.include(sealingKeyId(key));
    const none = await startFails(url, {});
    expect(none.message, 'nor without a key').to.match(/sealed with another key/);
    expect((await signingKeyRows(url)).map((r) => r.kid)).to.deep.equal(before.map((r) => r.kid));
  });

  it('when a database of the earlier release (signing keys in clear, a generated webhook key kept in it) starts with SECRETS_KEY, then everything is sealed under it and nothing is lost', async () => {
    const url = await databases.create('legacy');
    let app = await startAppOnOwnPool(url, { WEBHOOK_ALLOW_INSECURE: 'on', WEBHOOK_ALLOW_PRIVATE: 'on' });
    const demo = (await app.service.core.admin.seedDemo.execute()) as unknown as Demo;
    const token = await machineToken(app.url, demo);
    const registered = await fetch(`${app.url}/api/v1/webhook-endpoints`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-API-KEY': demo.apiKey },
      body: JSON.stringify({ url: 'http://127.0.0.1:9/hook', events: ['order.confirmed'] }),
    });
    expect(registered.status, await registered.clone().text()).to.equal(201);
    const { id: endpointId, secret } = (await registered.json()) as { id: string; secret: string };
    await app.stop();
    // What the earlier release left: the private JWKs in clear, beside the generated key.
    const [kept] = await adminQuery<{ key: string }>(url, `SELECT key FROM webhook_secret_keys WHERE id = 'generated'`);
    const generated = new AesGcmSecretSealer(Buffer.from(kept!.key, 'base64'));
    for (const row of await signingKeyRows(url)) {
      await adminQuery(url, 'UPDATE token_signing_keys SET private_jwk = $1::jsonb, sealed_private_jwk = NULL WHERE kid = $2', [
        generated.open(row.sealed_private_jwk!, signingKeyContext(row.kid)),
        row.kid,
      ]);
    }
    expect((await signingKeyRows(url)).map((r) => r.private_jwk).join(' ')).to.match(/"d"\s*:/);

    const key = randomBytes(32);
    app = await startAppOnOwnPool(url, { SECRETS_KEY: base64(key) });
    try {
      expect(await readUser(app.url, demo, token), 'a token issued before').to.equal(200);
      expect(kidOf(await machineToken(app.url, demo)), 'the same signing key').to.equal(kidOf(token));
    } finally {
      await app.stop();
    }
    expectNoPrivateJwk(await signingKeyRows(url));
    expect(await adminQuery(url, 'SELECT id FROM webhook_secret_keys'), 'the generated key is gone').to.deep.equal([]);
    const [endpoint] = await adminQuery<{ sealed_secret: string }>(url, 'SELECT sealed_secret FROM webhook_endpoints WHERE id = $1', [
      endpointId,
    ]);
    expect(new AesGcmSecretSealer(key).open(endpoint!.sealed_secret), 'the webhook secret, sealed again').to.equal(secret);
  });
});

describe('the secrets key in the configuration', () => {
  const key = randomBytes(32);

  it('when NODE_ENV=production and no key is set, then the configuration is refused naming SECRETS_KEY', () => {
    for (const env of [{ DATABASE_URL: 'postgres://x@127.0.0.1/db' }, {}]) {
      expect(() => loadConfig({ ...env, NODE_ENV: 'production' })).to.throw(/SECRETS_KEY is required when NODE_ENV=production/);
    }
    expect(loadConfig({ NODE_ENV: 'production', SECRETS_KEY: base64(key) }).webhooks.secretKey?.equals(key)).to.equal(true);
  });

  it('when only the former name WEBHOOK_SECRET_KEY is set, then it is the key; when both are set and differ, the configuration is refused', () => {
    expect(loadConfig({ NODE_ENV: 'production', WEBHOOK_SECRET_KEY: key.toString('hex') }).webhooks.secretKey?.equals(key)).to.equal(true);
    expect(loadConfig({ SECRETS_KEY: base64(key), WEBHOOK_SECRET_KEY: key.toString('hex') }).webhooks.secretKey?.equals(key)).to.equal(
      true,
    );
    expect(() => loadConfig({ SECRETS_KEY: base64(key), WEBHOOK_SECRET_KEY: base64(randomBytes(32)) })).to.throw(/both set and differ/);
    expect(() => loadConfig({ SECRETS_KEY: 'short' })).to.throw(/SECRETS_KEY must be 32 bytes/);
  });

  it('when the service is started with NODE_ENV=production and no key, then it exits non-zero saying what to set', async function () {
    this.timeout(120_000);
    const failure = await spawnServer(
      'src/bootstrap/main.ts',
      { NODE_ENV: 'production', SECRETS_KEY: undefined, WEBHOOK_SECRET_KEY: undefined, PERSISTENCE: 'memory' },
      await freePort(),
    ).then(
      async (server) => {
        server.child.kill('SIGTERM');
        await server.exited();
        throw new Error('the service started');
      },
      (err: Error) => err,
    );
    expect(failure.message).to.match(/server exited before listening/);
    expect(failure.message).to.match(/Failed to start: Invalid configuration: SECRETS_KEY is required when NODE_ENV=production/);
  });
});

describe('the embedded mode’s secrets key', function () {
  this.timeout(300_000);
  let root = '';
  let server: ServerProcess | null = null;
  before(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), 'pbw-sk-')));
  });
  after(async () => {
    if (server !== null && server.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await server.exited();
    }
    await rm(root, { recursive: true, force: true });
  });

  it('when the embedded service starts without SECRETS_KEY, then it keeps a generated key in its folder with mode 0600 and seals the signing keys with it; without that file it refuses to start', async () => {
    const folder = join(root, 'data');
    const env = {
      DATABASE_URL: undefined,
      PERSISTENCE: 'pglite',
      PGLITE_DIR: folder,
      SECRETS_KEY: undefined,
      WEBHOOK_SECRET_KEY: undefined,
    };
    server = await spawnServer('src/bootstrap/main.ts', env, await freePort(), 180_000);
    const jwks = (await (await fetch(`${server.url}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] };
    expect(jwks.keys).to.have.length(1);
    server.child.kill('SIGTERM');
    await server.exited();

    const file = join(folder, 'secrets.key');
    expect((await stat(file)).mode & 0o777, 'the key file is its owner’s alone').to.equal(0o600);
    const key = Buffer.from((await readFile(file, 'utf8')).trim(), 'base64');
    expect(key).to.have.length(32);
    const db = await openDatabase({ kind: 'pglite', dataDir: folder });
    try {
      const rows = (
        await db.knex.raw(
          'SELECT kid, private_jwk::text AS private_jwk, sealed_private_jwk, public_jwk::text AS public_jwk FROM token_signing_keys',
        )
      ).rows as KeyRow[];
      expectNoPrivateJwk(rows);
      expect(rows[0]!.sealed_private_jwk).to.match(new RegExp(`^v1\\.${sealingKeyId(key)}\\.`));
      expect((await db.knex.raw('SELECT id FROM webhook_secret_keys')).rows, 'nothing kept in the database').to.deep.equal([]);
    } finally {
      await db.close();
    }

    await rm(file);
    const refused = await spawnServer('src/bootstrap/main.ts', env, await freePort(), 180_000).then(
      async (s) => {
        s.child.kill('SIGTERM');
        await s.exited();
        throw new Error('the service started');
      },
      (err: Error) => err,
    );
    expect(refused.message).to.match(/secrets\.key is missing, but the database in this folder holds secrets sealed with key [0-9a-f]{8}/);
    expect(
      await stat(file).then(
        () => 'there',
        () => 'missing',
      ),
      'no new key was made',
    ).to.equal('missing');
  });

  it('when a folder of the earlier release kept its generated key in the database, then the first start moves it to secrets.key and what it sealed still opens', async () => {
    const folder = join(root, 'earlier');
    const db = await openDatabase({ kind: 'pglite', dataDir: folder });
    try {
      await migrate(db);
      const kept = randomBytes(32);
      const sealer = new AesGcmSecretSealer(kept);
      await db.knex('webhook_secret_keys').insert({ id: 'generated', key: base64(kept) });
      await db.knex('webhook_endpoints').insert({
        id: 'whe_earlier',
        owner_kind: 'agent',
        owner_id: 'agt_earlier',
        url: 'https://hooks.example/in',
        events: ['order.confirmed'],
        sealed_secret: sealer.seal('whsec_earlier'),
        created_at: new Date(),
      });
      const { key, source } = await loadSecretsKey(db.knex, { configured: null, folder });
      expect(source).to.deep.include({ kind: 'file', created: false });
      expect(key.equals(kept), 'the key it sealed with').to.equal(true);
      expect(Buffer.from((await readFile(join(folder, 'secrets.key'), 'utf8')).trim(), 'base64').equals(kept)).to.equal(true);
      expect((await stat(join(folder, 'secrets.key'))).mode & 0o777).to.equal(0o600);
      expect(await db.knex('webhook_secret_keys').select('id'), 'no key left in the database').to.deep.equal([]);
      const [row] = (await db.knex('webhook_endpoints').where({ id: 'whe_earlier' }).select('sealed_secret')) as {
        sealed_secret: string;
      }[];
      expect(new AesGcmSecretSealer(key).open(row!.sealed_secret)).to.equal('whsec_earlier');
    } finally {
      await db.close();
    }
  });
});
