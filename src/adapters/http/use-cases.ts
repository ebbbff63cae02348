import type { GetAgentBilling, GetStatement } from '../../application/billing/agent-billing.js';
import type { CancelOrder } from '../../application/booking/cancel-order.js';
import type { GetAgentAccount } from '../../application/booking/get-agent-account.js';
import type { GetOrder } from '../../application/booking/get-order.js';
import type { ConfirmHold, ReleaseHold } from '../../application/booking/hold-orders.js';
import type { OperatorOrders } from '../../application/operator/manage-orders.js';
import type { RedeemVoucher } from '../../application/operator/redeem-voucher.js';
import type { GetVoucher } from '../../application/booking/get-voucher.js';
import type { GetQuote } from '../../application/booking/get-quote.js';
import type { ListOrders } from '../../application/booking/list-orders.js';
import type { ListTrips } from '../../application/booking/list-trips.js';
import type { PlaceOrder } from '../../application/booking/place-order.js';
import type { PreviewCancellation } from '../../application/booking/preview-cancellation.js';
import type { QuoteBusTrip } from '../../application/booking/quote-bus-trip.js';
import type { QuoteTransfer } from '../../application/booking/quote-transfer.js';
import type { SearchCities } from '../../application/catalogue/search-cities.js';
import type { SearchLocations } from '../../application/catalogue/search-locations.js';
import type { CreateOwnKey } from '../../application/identity/create-own-key.js';
import type { ListOwnKeys } from '../../application/identity/list-own-keys.js';
import type { RevokeCreatedKey } from '../../application/identity/revoke-created-key.js';
import type { ListSecurityEvents } from '../../application/security-events/list-security-events.js';
import type { RecordKeyRefusal } from '../../application/security-events/record-key-refusal.js';
import type { ReportOwnKeyLeaked } from '../../application/identity/report-own-key-leaked.js';
import type { RollOwnKey } from '../../application/identity/roll-own-key.js';
import type { AuthenticateClient } from '../../application/wallet/authenticate-client.js';
import type { CreateWalletUser } from '../../application/wallet/create-wallet-user.js';
import type { GetCurrentWalletUser } from '../../application/wallet/get-current-wallet-user.js';
import type { GetMyBalance, GetUserBalance } from '../../application/wallet/get-my-balance.js';
import type { GetMyStatement, GetUserStatement } from '../../application/wallet/get-statement.js';
import type {
  AuthorizePayment,
  CaptureAuthorization,
  GetAuthorization,
  ListAuthorizations,
  VoidAuthorization,
  ExpireTestAuthorization,
} from '../../application/wallet/authorizations.js';
import type { GetTransaction } from '../../application/wallet/get-transaction.js';
import type { GetUserBalances } from '../../application/wallet/get-user-balances.js';
import type { GetWalletUser } from '../../application/wallet/get-wallet-user.js';
import type { IntrospectToken } from '../../application/wallet/introspect-token.js';
import type { ExchangeToken } from '../../application/wallet/exchange-token.js';
import type { IssueDelegatedToken } from '../../application/wallet/issue-delegated-token.js';
import type { IssueMachineToken } from '../../application/wallet/issue-machine-token.js';
import type { ListTransactions } from '../../application/wallet/list-transactions.js';
import type { ListWalletUsers } from '../../application/wallet/list-wallet-users.js';
import type { LogIn } from '../../application/wallet/log-in.js';
import type { LogOut } from '../../application/wallet/log-out.js';
import type { MakePayment } from '../../application/wallet/make-payment.js';
import type { MakeTransfer } from '../../application/wallet/make-transfer.js';
import type { RefundPayment } from '../../application/wallet/refund-payment.js';
import type { SummarizeTransactions } from '../../application/wallet/summarize-transactions.js';
import type { TopUp } from '../../application/wallet/top-up.js';
import type { FundTestUser } from '../../application/wallet/fund-test-user.js';
import type { RevokeToken } from '../../application/wallet/revoke-token.js';
import type { DeleteWebhookEndpoint } from '../../application/webhooks/delete-webhook-endpoint.js';
import type { GetWebhookEndpoint } from '../../application/webhooks/get-webhook-endpoint.js';
import type { ListWebhookDeliveries } from '../../application/webhooks/list-webhook-deliveries.js';
import type { ListWebhookEndpoints } from '../../application/webhooks/list-webhook-endpoints.js';
import type { RegisterWebhookEndpoint } from '../../application/webhooks/register-webhook-endpoint.js';
import type { RetryWebhookDelivery } from '../../application/webhooks/retry-webhook-delivery.js';
import type { ReadEventFeed } from '../../application/webhooks/read-event-feed.js';
import type { SendTestWebhook } from '../../application/webhooks/send-test-webhook.js';
import type { SandboxOrders } from '../../application/booking/sandbox-orders.js';

/**
 * The use cases the HTTP operations call, by area: the part of the core this adapter needs
 * (the composition root passes the whole core, which has them all).
 */
export interface HttpUseCases {
  readonly catalogue: { readonly searchLocations: SearchLocations; readonly searchCities: SearchCities };
  readonly booking: {
    readonly getAgentAccount: GetAgentAccount;
    /** The account's billing in the ledger (CONTRACT §6.4); a composition without it answers the account alone. */
    readonly getAgentBilling?: GetAgentBilling;
    readonly statements: GetStatement;
    readonly listTrips: ListTrips;
    readonly quoteTransfer: QuoteTransfer;
    readonly quoteBusTrip: QuoteBusTrip;
    readonly getQuote: GetQuote;
    readonly placeOrder: PlaceOrder;
    readonly getOrder: GetOrder;
    readonly listOrders: ListOrders;
    readonly confirmHold: ConfirmHold;
    readonly releaseHold: ReleaseHold;
    readonly cancelOrder: CancelOrder;
    readonly previewCancellation: PreviewCancellation;
    readonly operatorOrders: OperatorOrders;
    readonly sandboxOrders: SandboxOrders;
    readonly getVoucher: GetVoucher;
    readonly redeemVoucher: RedeemVoucher;
  };
  readonly identity: {
    readonly listOwnKeys: ListOwnKeys;
    readonly rollOwnKey: RollOwnKey;
    readonly reportOwnKeyLeaked: ReportOwnKeyLeaked;
    readonly createOwnKey: CreateOwnKey;
    readonly revokeCreatedKey: RevokeCreatedKey;
    readonly recordKeyRefusal: RecordKeyRefusal;
    readonly listSecurityEvents: ListSecurityEvents;
    readonly issueMachineToken: IssueMachineToken;
    readonly authenticateClient: AuthenticateClient;
    readonly revokeToken: RevokeToken;
    readonly introspectToken: IntrospectToken;
    readonly issueDelegatedToken: IssueDelegatedToken;
    readonly exchangeToken: ExchangeToken;
    readonly logIn: LogIn;
    readonly logOut: LogOut;
    readonly createWalletUser: CreateWalletUser;
    readonly listWalletUsers: ListWalletUsers;
    readonly getWalletUser: GetWalletUser;
    readonly getCurrentWalletUser: GetCurrentWalletUser;
  };
  readonly wallet: {
    readonly topUp: TopUp;
    readonly fundTestUser: FundTestUser;
    readonly refundPayment: RefundPayment;
    readonly makePayment: MakePayment;
    readonly makeTransfer: MakeTransfer;
    readonly getMyBalance: GetMyBalance;
    readonly getUserBalance: GetUserBalance;
    readonly getUserBalances: GetUserBalances;
    readonly getMyStatement: GetMyStatement;
    readonly getUserStatement: GetUserStatement;
    readonly authorize: AuthorizePayment;
    readonly captureAuthorization: CaptureAuthorization;
    readonly voidAuthorization: VoidAuthorization;
    readonly expireTestAuthorization: ExpireTestAuthorization;
    readonly getAuthorization: GetAuthorization;
    readonly listAuthorizations: ListAuthorizations;
    readonly listTransactions: ListTransactions;
    readonly getTransaction: GetTransaction;
    readonly summarizeTransactions: SummarizeTransactions;
  };
  readonly webhooks: {
    readonly register: RegisterWebhookEndpoint;
    readonly list: ListWebhookEndpoints;
    readonly get: GetWebhookEndpoint;
    readonly remove: DeleteWebhookEndpoint;
    readonly deliveries: ListWebhookDeliveries;
    readonly retry: RetryWebhookDelivery;
    readonly sendTest: SendTestWebhook;
    readonly feed: ReadEventFeed;
  };
}
