/** What the example source learns of a node: the public IP and port it advertises. */
export interface NodeIpValue {
  ip: string;
}
