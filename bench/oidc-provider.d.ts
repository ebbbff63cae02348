// oidc-provider ships no types; the benchmark only constructs it and uses its request handler.
declare module 'oidc-provider';
