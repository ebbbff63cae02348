import { expect } from 'chai';
import { parse } from 'yaml';
import { json, startTestApp, type TestApp } from '../support/app.js';
import { buildAgent, type TestAgent } from '../support/builders.js';
import { bearer, buildTenant, machineToken } from '../support/wallet-builders.js';

type Doc = { paths: Record<string, Record<string, any>>; components?: { schemas?: Record<string, any> } };

/** Every property schema named `…At` (or a summary's `from`/`to`) in the responses of a file, with where it is. */
function timestampsOf(doc: Doc): Array<{ where: string; schema: any }> {
  const out: Array<{ where: string; schema: any }> = [];
  const stack: Array<{ node: any; where: string }> = [
    { node: doc.paths, where: '' },
    { node: doc.components?.schemas ?? {}, where: 'components' },
  ];
  while (stack.length > 0) {
    const { node, where } = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (node.properties && typeof node.properties === 'object') {
      for (const [name, schema] of Object.entries<any>(node.properties)) {
        if (/At$/.test(name)) out.push({ where: `${where}.${name}`, schema });
      }
    }
    for (const [k, v] of Object.entries(node))
      if (k !== 'requestBody' && k !== 'parameters') stack.push({ node: v, where: `${where}/${k}` });
  }
  return out;
}

const nonNull = (schema: any): any => (Array.isArray(schema.anyOf) ? schema.anyOf.find((s: any) => s.type !== 'null') : schema);

describe('what the published files say about formats and enums, against what the server accepts', () => {
  let app: TestApp;
  let agent: TestAgent;
  let machine: string;
  let booking: Doc;
  let wallet: Doc;
  before(async () => {
    app = await startTestApp();
    agent = await buildAgent(app.service);
    machine = await machineToken(app, await buildTenant(app.service));
    booking = parse(await (await app.request('/openapi/booking-api.yaml')).text()) as Doc;
    wallet = parse(await (await app.request('/openapi/wallet-api.yaml')).text()) as Doc;
  });
  after(() => app.stop());

  it('when the trips date is not a calendar date, then the file says format: date and the server answers 400', async () => {
    const param = booking.paths['/api/v1/express-bus/trips']!.get.parameters.find((p: any) => p.name === 'date');
    expect(param.schema.format).to.equal('date');
    const res = await app.request('/api/v1/express-bus/trips?fromCityId=cty_bangkok&toCityId=cty_pattaya&date=2026-13-45', {
      headers: { 'x-api-key': agent.apiKey },
    });
    expect(res.status).to.equal(400);
  });

  it('when a vehicle class is named, then the file lists the server’s classes as an enum and another class is 400', async () => {
    const ref = booking.paths['/api/v1/airport-transfer/quotes']!.post.requestBody.content['application/json'].schema;
    const body = ref.$ref === undefined ? ref : booking.components!.schemas![ref.$ref.split('/').pop()];
    expect(body.properties.vehicleClass.enum).to.deep.equal(['sedan', 'suv', 'van']);
    const res = await app.request(
      '/api/v1/airport-transfer/quotes',
      json(
        'POST',
        {
          fromLocationId: 'loc_bkk',
          toLocationId: 'loc_bkk_silom',
          pickupAt: new Date(Date.now() + 86_400_000).toISOString(),
          passengers: 1,
          vehicleClass: 'limousine',
        },
        { 'x-api-key': agent.apiKey },
      ),
    );
    expect(res.status).to.equal(400);
  });

  it('when the transaction type filter is read, then the file’s pattern admits exactly the lists the server admits', async () => {
    const param = wallet.paths['/transactions']!.get.parameters.find((p: any) => p.name === 'type');
    const pattern = new RegExp(param.schema.pattern);
    for (const [value, ok] of [
      ['PAYMENT', true],
      ['TOP_UP,REFUND', true],
      ['PAYMENT,FOO', false],
      ['payment', false],
      ['anything', false],
    ] as const) {
      expect(pattern.test(value), value).to.equal(ok);
      const res = await app.request(`/transactions?type=${encodeURIComponent(value)}`, { headers: bearer(machine) });
      expect(res.status, value).to.equal(ok ? 200 : 400);
    }
  });

  it('when a response carries a timestamp, then the file declares it format: date-time', () => {
    for (const [file, doc] of [
      ['booking', booking],
      ['wallet', wallet],
    ] as const) {
      const stamps = timestampsOf(doc);
      expect(stamps.length, file).to.be.greaterThan(3);
      for (const { where, schema } of stamps) expect(nonNull(schema).format, `${file} ${where}`).to.equal('date-time');
    }
    const summary = wallet.paths['/transactions/summary']!.get.responses['200'].content['application/json'].schema;
    const props = summary.properties ?? wallet.components!.schemas![summary.$ref?.split('/').pop()]?.properties;
    expect(nonNull(props.from).format).to.equal('date-time');
  });

  it('when the JWKS and the replay and rate-limit headers are looked for, then the files declare them', () => {
    expect(Object.keys(wallet.paths)).to.include('/.well-known/jwks.json');
    const payment = wallet.paths['/me/payments']!.post.responses['201'].headers;
    expect(Object.keys(payment)).to.include.members([
      'Idempotent-Replayed',
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
      'Location',
    ]);
    const order = booking.paths['/api/v1/orders']!.post.responses['201'].headers;
    expect(Object.keys(order)).to.include.members(['Idempotent-Replayed', 'RateLimit-Remaining']);
  });
});
