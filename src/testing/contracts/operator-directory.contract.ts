import { expect } from 'chai';
import { THAILAND_CATALOGUE } from '../../adapters/catalogue/thailand.js';
import type { CatalogueWriter } from '../../domain/catalogue/catalogue.port.js';
import type { OperatorDirectory } from '../../domain/catalogue/operator-directory.port.js';
import { buildOperator, reasonOf } from '../fixtures.js';

/** The operator directory under test, with the catalogue writer of the same store (to load the vehicle classes). */
export interface OperatorStores {
  readonly operators: OperatorDirectory;
  readonly catalogue: CatalogueWriter;
}

/** How every operator directory keeps operators and fleets (CONTRACT §6.1). */
export function operatorDirectoryContract(name: string, make: () => Promise<OperatorStores>): void {
  describe(`operator directory contract: ${name}`, () => {
    let s: OperatorStores;
    before(async () => {
      s = await make();
      await s.catalogue.load(THAILAND_CATALOGUE);
    });

    it('when an operator is created, then it is found by code and listed in code order with what it was given', async () => {
      const a = buildOperator({ confirmation: 'on-request', confirmationWindowMinutes: 45, timezone: 'Europe/Paris' });
      const b = buildOperator({ code: `${a.code}-B` });
      expect(await s.operators.create(b)).to.deep.equal(b);
      await s.operators.create(a);
      expect(await s.operators.find(a.code)).to.deep.equal(a);
      const listed = (await s.operators.list()).filter((o) => o.code.startsWith(a.code));
      expect(listed).to.deep.equal([a, b]);
    });

    it('when a code is taken, then operator-exists and the first operator is unchanged; of concurrent creates one wins', async () => {
      const first = buildOperator();
      await s.operators.create(first);
      expect(await reasonOf(s.operators.create({ ...first, name: 'Someone Else' }))).to.equal('operator-exists');
      expect(await s.operators.find(first.code)).to.deep.equal(first);
      const contested = buildOperator();
      const outcomes = await Promise.all(Array.from({ length: 5 }, () => reasonOf(s.operators.create(contested))));
      expect(outcomes.filter((o) => o === 'resolved')).to.have.length(1);
      expect(outcomes.filter((o) => o === 'operator-exists')).to.have.length(4);
    });

    it('when an operator does not exist, then find answers null and its fleet is empty', async () => {
      expect(await s.operators.find('NO-SUCH-OPERATOR-XYZ')).to.equal(null);
      expect(await s.operators.fleetOf('NO-SUCH-OPERATOR-XYZ')).to.deep.equal([]);
    });

    it('when a fleet is set, then it replaces the one before and reads back by class', async () => {
      const op = buildOperator();
      await s.operators.create(op);
      expect(await s.operators.fleetOf(op.code)).to.deep.equal([]);
      await s.operators.setFleet({ operatorCode: op.code, vehicleClass: 'van', vehicles: 2 });
      await s.operators.setFleet({ operatorCode: op.code, vehicleClass: 'sedan', vehicles: 4 });
      expect(await s.operators.setFleet({ operatorCode: op.code, vehicleClass: 'sedan', vehicles: 7 })).to.deep.equal({
        operatorCode: op.code,
        vehicleClass: 'sedan',
        vehicles: 7,
      });
      expect(await s.operators.fleetOf(op.code)).to.deep.equal([
        { operatorCode: op.code, vehicleClass: 'sedan', vehicles: 7 },
        { operatorCode: op.code, vehicleClass: 'van', vehicles: 2 },
      ]);
    });

    it('when a fleet names an unknown operator or vehicle class, then null or invalid-request, and nothing is stored', async () => {
      expect(await s.operators.setFleet({ operatorCode: 'NO-SUCH-OPERATOR-XYZ', vehicleClass: 'sedan', vehicles: 1 })).to.equal(null);
      const op = buildOperator();
      await s.operators.create(op);
      expect(await reasonOf(s.operators.setFleet({ operatorCode: op.code, vehicleClass: 'hovercraft', vehicles: 1 }))).to.equal(
        'invalid-request',
      );
      expect(await s.operators.fleetOf(op.code)).to.deep.equal([]);
    });

    it('when a fleet is set for an operator that runs buses and no transfers, then invalid-request and it has none', async () => {
      const bus = THAILAND_CATALOGUE.schedules[0]!.operatorCode;
      expect(THAILAND_CATALOGUE.transferFares.some((f) => f.operatorCode === bus)).to.equal(false);
      expect(await reasonOf(s.operators.setFleet({ operatorCode: bus, vehicleClass: 'van', vehicles: 3 }))).to.equal('invalid-request');
      expect(await s.operators.fleetOf(bus)).to.deep.equal([]);
    });

    it('when the catalogue is loaded again, then a fleet set since is kept', async () => {
      const [entry] = THAILAND_CATALOGUE.fleets;
      const vehiclesOf = async () =>
        (await s.operators.fleetOf(entry!.operatorCode)).find((f) => f.vehicleClass === entry!.vehicleClass)?.vehicles;
      // The store may be shared with other tests: the size found is put back.
      const before = (await vehiclesOf())!;
      const changed = before === 0 ? 1 : before - 1;
      await s.operators.setFleet({ ...entry!, vehicles: changed });
      await s.catalogue.load(THAILAND_CATALOGUE);
      expect(await vehiclesOf()).to.equal(changed);
      await s.operators.setFleet({ ...entry!, vehicles: before });
    });
  });
}
