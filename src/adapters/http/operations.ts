import type { Operation, OperationSpec } from './operation.js';
import { accountOperations } from './booking/account.operations.js';
import { statementOperations } from './booking/statement.operations.js';
import { catalogueOperations } from './booking/catalogue.operations.js';
import { healthOperations } from './health.openapi.js';
import { docsOperations } from './docs.openapi.js';
import { tripOperations } from './booking/trips.operations.js';
import { quoteOperations } from './booking/quotes.operations.js';
import { orderOperations } from './booking/orders.operations.js';
import { bookingTestHelperOperations } from './booking/test-helpers.operations.js';
import { operatorOrderOperations } from './operator/orders.operations.js';
import { voucherOperations } from './booking/vouchers.operations.js';
import { operatorVoucherOperations } from './operator/vouchers.operations.js';
import { keyOperations } from './booking/keys.operations.js';
import { authOperations } from './wallet/auth.operations.js';
import { oauthOperations } from './wallet/oauth.operations.js';
import { userOperations } from './wallet/users.operations.js';
import { jwksOperations, oauthMetadataOperations } from './wallet/well-known.operations.js';
import { moneyOperations } from './wallet/money.operations.js';
import { transactionOperations } from './wallet/transactions.operations.js';
import { authorizationOperations } from './wallet/authorizations.operations.js';
import { agentSecurityEventOperations, tenantSecurityEventOperations } from './security-events/security-events.operations.js';
import { agentWebhookOperations, tenantWebhookOperations, webhookOperations } from './webhooks/webhooks.operations.js';
import { agentEventFeedOperations, tenantEventFeedOperations } from './webhooks/events.operations.js';

/**
 * Every published operation, in the order of the published files. Each area adds its list here
 * and to its surface's list below; the OpenAPI files are generated from this and a test checks
 * it against the mounted routes. The platform's own routes (health, docs) are served by routers
 * of their own at the root; every other operation is a declaration.
 */
export const OPERATIONS: readonly OperationSpec[] = [
  ...catalogueOperations,
  ...accountOperations,
  ...statementOperations,
  ...tripOperations,
  ...quoteOperations,
  ...orderOperations,
  ...voucherOperations,
  ...keyOperations,
  ...bookingTestHelperOperations,
  ...operatorOrderOperations,
  ...operatorVoucherOperations,
  ...healthOperations,
  ...docsOperations,
  ...authOperations,
  ...oauthMetadataOperations,
  ...oauthOperations,
  ...userOperations,
  ...jwksOperations,
  ...moneyOperations,
  ...transactionOperations,
  ...authorizationOperations,
  ...webhookOperations,
  ...agentEventFeedOperations,
  ...tenantEventFeedOperations,
  ...agentSecurityEventOperations,
  ...tenantSecurityEventOperations,
];

/** The booking operations that take no key, mounted before the key check. */
export const BOOKING_PUBLIC_OPERATIONS: readonly Operation[] = [...catalogueOperations];

/**
 * The booking operations behind the API key, in routing order (a literal path before a
 * parameterised one that would take it).
 */
export const BOOKING_OPERATIONS: readonly Operation[] = [
  ...accountOperations,
  ...statementOperations,
  ...keyOperations,
  ...tripOperations,
  ...quoteOperations,
  ...orderOperations,
  ...voucherOperations,
  ...bookingTestHelperOperations,
  ...agentWebhookOperations,
  ...agentEventFeedOperations,
  ...agentSecurityEventOperations,
];

/** The operator operations behind the operator key. */
export const OPERATOR_OPERATIONS: readonly Operation[] = [...operatorOrderOperations, ...operatorVoucherOperations];

/** The wallet operations, in routing order (`/transactions/summary` before `/transactions/{transactionId}`). */
export const WALLET_OPERATIONS: readonly Operation[] = [
  ...authOperations,
  ...oauthOperations,
  ...userOperations,
  ...moneyOperations,
  ...transactionOperations,
  ...authorizationOperations,
  ...tenantWebhookOperations,
  ...tenantEventFeedOperations,
  ...tenantSecurityEventOperations,
];

/** What the service publishes about itself, mounted at the root whatever `WALLET_BASE_PATH` says. */
export const WELL_KNOWN_OPERATIONS: readonly Operation[] = [...jwksOperations, ...oauthMetadataOperations];
