import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { generateApiKey } from '../../src/domain/identity/api-key.js';
import { generateClientSecret } from '../../src/domain/identity/tenant.js';
import { looksLikeSecret, redactSecrets } from '../../src/domain/shared/redaction.js';
import { endpointUrlForTrail, shownSecurityEvent, type SecurityEvent } from '../../src/domain/security-events/security-event.js';

const random = { bytes: (n: number) => randomBytes(n) };

describe('recognising secrets where they do not belong', () => {
  const key = generateApiKey(random);
  const body = key.slice(4);

  it('when a text holds an agent or operator key, live or test, a client secret or a JWT, then it looks like a secret and each is redacted', () => {
    const secrets = [
      key,
      `pbo_${body}`,
      `pbk_test_${body}`,
      `pbo_test_${body}`,
      `pbk%5F${body}`,
      generateClientSecret(random),
      'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl',
      'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.',
    ];
    for (const secret of secrets) {
      expect(looksLikeSecret(secret), secret).to.equal(true);
      expect(redactSecrets(`/api/v1/orders/${secret}/x`), secret).to.equal('/api/v1/orders/[redacted]/x');
    }
    expect(redactSecrets(`curl/8 ${key} and ${key}`)).to.equal('curl/8 [redacted] and [redacted]');
  });

  it('when a text holds no secret (ids, a display prefix, a sane request id), then it is left as it is', () => {
    for (const text of [
      '/api/v1/orders/ord_0mx5kdlgi0000460',
      key.slice(0, 8),
      'req_5d1c2f8a9b3e4d6f',
      'order-sync-42',
      'curl/8.5.0',
      'a.b.c',
    ]) {
      expect(looksLikeSecret(text), text).to.equal(false);
      expect(redactSecrets(text)).to.equal(text);
    }
  });

  it('when an endpoint URL is written to the trail, then it keeps its origin and path only', () => {
    expect(endpointUrlForTrail('https://hooks.example.com/in?token=abc#x')).to.equal('https://hooks.example.com/in');
    expect(endpointUrlForTrail('https://hooks.example.com:8443')).to.equal('https://hooks.example.com:8443/');
    expect(endpointUrlForTrail(`https://hooks.example.com/${key}/in`)).to.equal('https://hooks.example.com/[redacted]/in');
    expect(endpointUrlForTrail('not a url?token=abc')).to.equal('not a url');
  });

  it('when an event recorded before is shown, then an endpoint URL loses its query and a secret request id is redacted', () => {
    const event: SecurityEvent = {
      id: 'sev_1',
      type: 'webhook_endpoint.created',
      owner: { kind: 'agent', id: 'agt_1' },
      occurredAt: new Date(),
      actor: { kind: 'api-key', id: 'key_1' },
      subject: { kind: 'webhook_endpoint', id: 'whe_1' },
      ip: '127.0.0.1',
      requestId: key,
      details: { url: 'https://hooks.example.com/in?token=abc', events: ['order.confirmed'] },
    };
    const shown = shownSecurityEvent(event);
    expect(shown.details).to.deep.equal({ url: 'https://hooks.example.com/in', events: ['order.confirmed'] });
    expect(shown.requestId).to.equal('[redacted]');
    const plain = { ...event, type: 'api_key.created' as const, requestId: 'req_1', details: { name: 'x' } };
    expect(shownSecurityEvent(plain)).to.equal(plain);
  });
});
