import { expect } from 'chai';
import { startTestApp, type TestApp } from '../support/app.js';

describe('public autocomplete', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
    await app.service.core.catalogue.seed.execute();
  });
  after(() => app.stop());

  const get = async (path: string) => {
    const res = await app.request(path);
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };

  it('when searching locations by code, then the airport is found with the contract’s fields only', async () => {
    const { status, body } = await get('/api/v1/airport-transfer/locations?q=BKK');
    expect(status).to.equal(200);
    expect(body.data[0]).to.deep.equal({
      id: 'loc_bkk',
      code: 'BKK',
      name: 'Suvarnabhumi Airport',
      type: 'airport',
      city: 'Bangkok',
      country: 'Thailand',
    });
  });

  it('when searching without accents, then accented hotel names match', async () => {
    const { body } = await get('/api/v1/airport-transfer/locations?q=hotel%20cafe');
    expect(body.data.map((l: { name: string }) => l.name)).to.include('Hôtel Café Sukhumvit');
  });

  it('when searching the shipped catalogue, then Thailand’s airports, districts and hotels are there', async () => {
    for (const [q, name] of [
      ['don mueang', 'Don Mueang Airport'],
      ['phuket air', 'Phuket Airport'],
      ['khao san', 'Khao San Road'],
      ['silom', 'Silom'],
      ['jomtien', 'Jomtien Beach'],
    ]) {
      const { body } = await get(`/api/v1/airport-transfer/locations?q=${encodeURIComponent(q!)}`);
      expect(
        body.data.map((l: { name: string }) => l.name),
        q,
      ).to.include(name);
    }
  });

  it('when searching bus cities, then the city list is searchable', async () => {
    const { body } = await get('/api/v1/express-bus/cities?q=chiang');
    expect(body.data).to.deep.equal([{ id: 'cty_chiangmai', name: 'Chiang Mai', country: 'Thailand' }]);
    for (const city of ['Bangkok', 'Pattaya', 'Hua Hin', 'Phuket', 'Khon Kaen']) {
      const r = await get(`/api/v1/express-bus/cities?q=${encodeURIComponent(city.toLowerCase())}`);
      expect(r.body.data.map((c: { name: string }) => c.name)).to.include(city);
    }
  });

  it('when limit is given, then at most that many come back', async () => {
    const { body } = await get('/api/v1/airport-transfer/locations?q=a&limit=2');
    expect(body.data).to.have.length(2);
  });

  it('when q is missing, empty, over 64 characters or repeated, or limit is out of range, then 400 invalid-request with paths', async () => {
    for (const qs of ['', 'q=', `q=${'a'.repeat(65)}`, 'q=a&q=b', 'q=a&limit=0', 'q=a&limit=1000', 'q=a&limit=x']) {
      const { status, body } = await get(`/api/v1/express-bus/cities?${qs}`);
      expect(status, qs).to.equal(400);
      expect(body.reason).to.equal('invalid-request');
      expect(body.errors[0]).to.have.keys('path', 'message');
    }
  });

  it('when nothing matches, then an empty list', async () => {
    const { status, body } = await get('/api/v1/express-bus/cities?q=zzzz');
    expect(status).to.equal(200);
    expect(body).to.deep.equal({ data: [] });
  });
});
