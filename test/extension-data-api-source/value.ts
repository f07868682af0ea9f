/** What the example Data API source learns: how many validations the service lists for each watched node id. */
export interface ValidationCountValue {
  network: string;
  counts: { nodeId: string; validations: number }[];
}
