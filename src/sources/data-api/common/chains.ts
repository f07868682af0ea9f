/** The chains the core calls P, X and C, by the service's blockchain aliases. */
export const DATA_API_CHAINS = [
  { chain: 'P', alias: 'p-chain' },
  { chain: 'X', alias: 'x-chain' },
  { chain: 'C', alias: 'c-chain' },
] as const;

/** A primary-network chain as labelled in the core (`P`, `X`, `C`). */
export type PrimaryChain = (typeof DATA_API_CHAINS)[number]['chain'];
