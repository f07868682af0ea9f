/** The primary network's subnet id, which is also the P-Chain's blockchain id. */
export const PRIMARY_NETWORK_ID = '11111111111111111111111111111111LpoYY';
