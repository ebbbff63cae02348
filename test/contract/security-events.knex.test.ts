import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { KnexAgentDirectory } from '../../src/adapters/knex/agent-directory.knex.js';
import { KnexWebhookStore } from '../../src/adapters/knex/webhook-store.knex.js';
import { keyToRow } from '../../src/adapters/knex/identity-rows.js';
import { KnexSecurityEvents, recordSecurityEvents } from '../../src/adapters/knex/security-events.knex.js';
import { OPERATOR_CONTEXT, apiKeyCreatedEvent } from '../../src/domain/security-events/security-event.js';
import { pageRequest } from '../../src/domain/shared/page.js';
import { keyRecordOf, securityEventsContract } from 'partner-booking-wallet/testing';
import { testDatabase } from '../support/database.js';

securityEventsContract('PostgreSQL (Knex)', async () => {
  const { knex } = await testDatabase();
  return { events: new KnexSecurityEvents(knex), directory: new KnexAgentDirectory(knex), webhooks: new KnexWebhookStore(knex) };
});

describe('security events on PostgreSQL: append-only in the database itself', () => {
  const owner = () => ({ kind: 'agent' as const, id: `agt_${randomBytes(8).toString('hex')}` });
  const appendOne = async () => {
    const { knex } = await testDatabase();
    const o = owner();
    const key = keyRecordOf(o.id, { createdAt: new Date() });
    await recordSecurityEvents(knex, [apiKeyCreatedEvent(key, OPERATOR_CONTEXT)]);
    const [id] = (await knex('security_events').where({ owner_id: o.id }).pluck('id')) as string[];
    return { knex, id: id!, o };
  };

  it('when any statement updates or deletes an event, then the database refuses it and the event stays as it was', async () => {
    const { knex, id } = await appendOne();
    let updateError: unknown = null;
    await knex('security_events')
      .where({ id })
      .update({ type: 'api_key.revoked' })
      .catch((e: unknown) => (updateError = e));
    let deleteError: unknown = null;
    await knex.raw('DELETE FROM security_events WHERE id = ?', [id]).catch((e: unknown) => (deleteError = e));
    expect(String(updateError)).to.match(/append-only/);
    expect(String(deleteError)).to.match(/append-only/);
    expect(await knex('security_events').where({ id }).first('type')).to.deep.equal({ type: 'api_key.created' });
  });

  it('when the purge’s setting is on only in another transaction, then a delete is still refused', async () => {
    const { knex, id } = await appendOne();
    await knex.transaction(async (trx) => trx.raw(`SELECT set_config('pbw.security_event_purge', 'on', true)`));
    const refused = await knex.raw('DELETE FROM security_events WHERE id = ?', [id]).then(
      () => false,
      () => true,
    );
    expect(refused).to.equal(true);
  });

  it('when the change an event records rolls back, then the event is gone with it', async () => {
    const { knex } = await testDatabase();
    const directory = new KnexAgentDirectory(knex);
    const code = `C-${randomBytes(4).toString('hex')}`;
    await directory.createChannel({
      code,
      name: 'C',
      currency: 'THB',
      markupBps: 0,
      freeCancellationHours: 24,
      lateCancellationFeeBps: 0,
      maxHoldMinutes: 30,
    });
    const agent = await directory.createAgent({
      id: `agt_${randomBytes(8).toString('hex')}`,
      name: 'A',
      channelCode: code,
      entitlements: [],
      discountBps: 0,
      createdAt: new Date(),
    });
    await directory.insertKey(keyRecordOf(agent.id, { createdAt: new Date() }), OPERATOR_CONTEXT);
    const key = keyRecordOf(agent.id, { createdAt: new Date() });
    const failed = await knex
      .transaction(async (trx) => {
        await trx('api_keys').insert(keyToRow(key));
        await recordSecurityEvents(trx, [apiKeyCreatedEvent(key, OPERATOR_CONTEXT)]);
        throw new Error('the change fails after its event was written');
      })
      .then(
        () => false,
        () => true,
      );
    expect(failed).to.equal(true);
    const events = new KnexSecurityEvents(knex);
    const page = await events.list({ owner: { kind: 'agent', id: agent.id }, page: pageRequest({}) });
    expect(page.data).to.have.length(1);
    expect(page.data.map((e) => e.subject.id)).to.not.include(key.id);
    expect(await directory.findKey(key.id)).to.equal(null);
  });
});
