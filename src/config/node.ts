import type { WatchedAddress } from './addresses.js';
import type { RawConfig } from './schema.js';
import { ALWAYS_SECRET_HEADERS, DEFAULT_MAX_VALIDATORS, DEFAULT_NODE_URL } from './defaults.js';
import { REDACTED, redactUrlText } from './problems.js';

// The `nodes` and `watch` sections: their types, defaults and rules, and how --config.check prints them.

/** What to watch on one node. */
export interface WatchConfig {
  /** Validators to watch; empty means "this node's own id". */
  nodeIds: string[];
  /** Export every current primary-network validator. */
  allValidators: boolean;
  /** Subnets / L1s whose validators and chains to watch. */
  subnetIds: string[];
  /** Most validators exported per subnet; the rest are left out with a warning (a series cap). */
  maxValidators: number;
  /**
   * L1 validations to look up one by one (platform.getL1Validator), whether or
   * not their L1 is watched; absent when none.
   */
  validationIds?: string[];
}

/** One polled node. */
export interface NodeConfig {
  /** The `node` label value. */
  name: string;
  url: string;
  headers: Record<string, string>;
  /** Lower-cased names of headers whose values must never be shown. */
  secretHeaders: string[];
  watch: WatchConfig;
  /** C-Chain and L1 addresses whose balance this node is asked for (`addresses` with this node as `rpc_node`); absent when none. */
  addresses?: WatchedAddress[];
}

/** The `watch` section as the schema read it (the global one or a node's own). */
type RawWatch = NonNullable<RawConfig['watch']>;

/** A node's watch list: its own keys, else the global ones, else the defaults. */
export function finalizeWatch(own: RawWatch | undefined, global: RawWatch | undefined): WatchConfig {
  const w = own ?? {};
  const g = global ?? {};
  const validationIds = w.validation_ids ?? g.validation_ids ?? [];
  return {
    nodeIds: w.node_ids ?? g.node_ids ?? [],
    allValidators: w.all_validators ?? g.all_validators ?? false,
    subnetIds: w.subnet_ids ?? g.subnet_ids ?? [],
    maxValidators: w.max_validators ?? g.max_validators ?? DEFAULT_MAX_VALIDATORS,
    // Only when there are some, so configurations without them stay as they were (and reloads compare equal).
    ...(validationIds.length > 0 ? { validationIds: [...new Set(validationIds)] } : {}),
  };
}

/** The default `node` label of a URL: host:port. */
export function defaultNodeName(url: string): string {
  const u = new URL(url);
  const port = u.port || (u.protocol === 'https:' ? '443' : '80');
  return `${u.hostname.includes(':') ? `[${u.hostname}]` : u.hostname}:${port}`.replace(/^\[\[(.*)\]\]/, '[$1]');
}

/** The `nodes` section: each node's name (unique), URL, headers and watch list; the default node unless `demo` polls its own. */
export function finalizeNodes(raw: RawConfig['nodes'], global: RawWatch | undefined, demo: boolean, problems: string[]): NodeConfig[] {
  const rawNodes = raw ?? (demo ? [] : [{ url: DEFAULT_NODE_URL }]);
  const names = new Map<string, number>();
  return rawNodes.map((n: NonNullable<RawConfig['nodes']>[number], i) => {
    const name = n.name ?? defaultNodeName(n.url);
    const prev = names.get(name);
    if (prev !== undefined)
      problems.push(
        `nodes[${i}].name: duplicate node name "${name}" (also nodes[${prev}])${n.name === undefined ? '; two URLs of one host and port: give each node a name in the file' : '; set a distinct name'}`,
      );
    names.set(name, i);
    return {
      name,
      url: n.url.replace(/\/+$/, ''),
      headers: n.headers ?? {},
      secretHeaders: [...new Set([...ALWAYS_SECRET_HEADERS, ...(n.secret_headers ?? []).map((h) => h.toLowerCase())])],
      watch: finalizeWatch(n.watch, global),
    };
  });
}

/** A watch list as `--config.check` prints it: every key, validation_ids included when empty. */
export function printWatch(w: WatchConfig): Record<string, unknown> {
  return {
    node_ids: [...w.nodeIds],
    all_validators: w.allValidators,
    subnet_ids: [...w.subnetIds],
    max_validators: w.maxValidators,
    validation_ids: [...(w.validationIds ?? [])],
  };
}

/** A node as `--config.check` prints it: a URL's password and secret headers' values as `<redacted>`. */
export function printNode(n: NodeConfig): Record<string, unknown> {
  const extraSecret = n.secretHeaders.filter((h) => !ALWAYS_SECRET_HEADERS.includes(h));
  const headers = Object.fromEntries(Object.entries(n.headers).map(([k, v]) => [k, n.secretHeaders.includes(k.toLowerCase()) ? REDACTED : v]));
  return {
    name: n.name,
    url: redactUrlText(n.url),
    ...(Object.keys(headers).length ? { headers } : {}),
    ...(extraSecret.length ? { secret_headers: extraSecret } : {}),
    watch: printWatch(n.watch),
  };
}
