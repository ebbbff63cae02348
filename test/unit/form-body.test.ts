import { expect } from 'chai';
import express from 'express';
import type { AddressInfo } from 'node:net';
import { formBody } from '../../src/adapters/http/request-guards.js';

// The plain form OAuth clients send is read without body-parser's layers; every other form still
// goes through body-parser. Each body is posted both ways and must come out the same.
const PLAIN = 'application/x-www-form-urlencoded';
const VIA_BODY_PARSER = 'Application/X-WWW-Form-Urlencoded; Charset="UTF-8"';

describe('form bodies (the OAuth endpoints)', () => {
  let base = '';
  let close: () => Promise<void> = async () => undefined;
  const readBy = new Set<string>();

  before(async () => {
    const app = express();
    app.post('/form', formBody, (req, res) => {
      readBy.add(String(req.headers['content-type']));
      res.json({ body: Object.fromEntries(Object.entries(req.body as object)) });
    });
    app.use(((err: { status?: number; type?: string }, _req, res, _next) => {
      res.status(err.status ?? 500).json({ type: err.type ?? null });
    }) as express.ErrorRequestHandler);
    const server = app.listen(0, '127.0.0.1');
    await new Promise<void>((ok) => server.once('listening', ok));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => new Promise<void>((ok) => server.close(() => ok()));
  });
  after(() => close());

  const post = async (contentType: string, body: string): Promise<[number, unknown]> => {
    const res = await fetch(`${base}/form`, { method: 'POST', headers: { 'content-type': contentType }, body });
    const json = (await res.json()) as { body?: unknown; type?: unknown };
    return [res.status, json.body ?? json];
  };

  const bodies = [
    'grant_type=client_credentials&client_id=cli_1&client_secret=s3cr%2Bt%20x',
    'a=1&a=2&b=',
    'a+b=c+d&&=skipped&novalue&x=%E0%B8%81',
    'token=%00nul&empty=',
    'bad=%zz&worse=%FF&%=%&__proto__=x&constructor=y',
    'a[]=1&[b]=2&c%5B%5D=3&d[e]=4&f=5&f=6',
    '',
    'p=' + 'x'.repeat(100),
    Array.from({ length: 50 }, (_, i) => `p${i}=${i}`).join('&'),
    Array.from({ length: 51 }, (_, i) => `p${i}=${i}`).join('&'),
    'big=' + 'y'.repeat(17 * 1024),
  ];

  for (const body of bodies) {
    it(`when the form is ${JSON.stringify(body.length > 60 ? `${body.slice(0, 40)}… (${body.length} chars)` : body)}, then the plain reading equals body-parser's`, async () => {
      const plain = await post(PLAIN, body);
      const parsed = await post(VIA_BODY_PARSER, body);
      expect(plain).to.deep.equal(parsed);
    });
  }

  it('when the plain form is read, then it does not go through body-parser, and limits answer as body-parser does', async () => {
    expect(await post(PLAIN, Array.from({ length: 51 }, (_, i) => `p${i}=${i}`).join('&'))).to.deep.equal([
      413,
      { type: 'parameters.too.many' },
    ]);
    expect(await post(PLAIN, 'big=' + 'y'.repeat(17 * 1024))).to.deep.equal([413, { type: 'entity.too.large' }]);
    const [status, body] = await post(PLAIN, 'a=1&a=2');
    expect([status, body]).to.deep.equal([200, { a: ['1', '2'] }]);
    expect(readBy.has(PLAIN) && readBy.has(VIA_BODY_PARSER)).to.equal(true);
  });
});
