// What the configuration knows of the Avalanche Data API: its defaults and the networks it serves.
// A leaf module, so config/ does not import the Data API client (which imports config/ itself).

/** The public Avalanche Data API. */
export const DEFAULT_DATA_API_URL = 'https://data-api.avax.network';
/**
 * The header the public service reads the API key from. The written spec
 * names `x-service-api-key`; the deployed service (and its docs) use this one.
 */
export const DEFAULT_DATA_API_KEY_HEADER = 'x-glacier-api-key';
/** Default client-side limit, requests per minute: modest enough for a user without a key. */
export const DEFAULT_DATA_API_RATE_LIMIT = 60;
/** The `network` path value of the Data API. */
export const DATA_API_NETWORKS = ['mainnet', 'fuji', 'testnet'] as const;
/** A network the Data API serves. */
export type DataApiNetwork = (typeof DATA_API_NETWORKS)[number];
