import { Document, isMap, isPair, isScalar } from 'yaml';
import { DEFAULT_DATA_API_URL } from './data-api.js';
import type { WatchedAddress } from './addresses.js';
import { formatDuration } from './duration.js';
import { DATA_API_KEY_ENV } from './flags.js';
import type { Config, NodeConfig, WatchConfig } from './load.js';
import { REDACTED, redactUrlText } from './problems.js';

/**
 * What `--config.check` prints: the configuration the exporter would run with,
 * every default filled in, as a YAML file that `--config.file` reads back to
 * the same configuration (test/config-messages.test.ts reads it back). Secrets
 * are never printed: the Data API key as the file or variable it comes from,
 * a secret header or URL password as `<redacted>`, which the loader refuses
 * with a sentence, so a printed file is never run with a placeholder for a
 * password. Settings left unset (the Data API's URL and network) stay unset,
 * with a comment saying what applies; no YAML anchors, no keys the loader
 * does not know.
 */

/** The headers that are secret whatever `secret_headers` says (load.ts). */
const ALWAYS_SECRET = new Set(['authorization', 'proxy-authorization', 'cookie']);

function describeWatch(w: WatchConfig): Record<string, unknown> {
  return {
    node_ids: [...w.nodeIds],
    all_validators: w.allValidators,
    subnet_ids: [...w.subnetIds],
    max_validators: w.maxValidators,
    ...(w.validationIds?.length ? { validation_ids: [...w.validationIds] } : {}),
  };
}

function describeNode(n: NodeConfig): Record<string, unknown> {
  const extraSecret = n.secretHeaders.filter((h) => !ALWAYS_SECRET.has(h));
  const headers = Object.fromEntries(Object.entries(n.headers).map(([k, v]) => [k, n.secretHeaders.includes(k.toLowerCase()) ? REDACTED : v]));
  return {
    name: n.name,
    url: redactUrlText(n.url),
    ...(Object.keys(headers).length ? { headers } : {}),
    ...(extraSecret.length ? { secret_headers: extraSecret } : {}),
    watch: describeWatch(n.watch),
  };
}

function describeAddress(a: WatchedAddress, rpcNode: string | undefined): Record<string, unknown> {
  return {
    alias: a.alias,
    chain: a.chain,
    address: a.address,
    ...(a.floorAvax !== undefined ? { floor_avax: a.floorAvax } : {}),
    ...(rpcNode !== undefined ? { rpc_node: rpcNode } : {}),
  };
}

/** Puts a comment above the pair `key` of `map`, or at the end of the map when it has no such key. */
function commentAt(map: unknown, key: string, lines: string[]): void {
  if (!isMap(map) || lines.length === 0) return;
  const text = lines.map((l) => ` ${l}`).join('\n');
  const pair = map.items.find((p) => isPair(p) && isScalar(p.key) && p.key.value === key);
  if (pair && isScalar(pair.key)) pair.key.commentBefore = text;
  else map.comment = text;
}

/** The configuration as a YAML file `--config.file` reads back; secrets as `<redacted>` or as where they come from. */
export function describeConfig(config: Config): string {
  const c = config;
  const probeWatch = c.probe.targets[0]?.watch;
  const body = {
    web: {
      listen_address: c.web.listenAddress,
      telemetry_path: c.web.telemetryPath,
      ...(c.web.configFile !== undefined ? { config_file: c.web.configFile } : {}),
      enable_lifecycle: c.web.enableLifecycle,
    },
    poll: {
      interval: formatDuration(c.poll.intervalMs),
      timeout: formatDuration(c.poll.timeoutMs),
      max_age: formatDuration(c.poll.maxAgeMs),
      peers_interval: formatDuration(c.poll.peersIntervalMs),
    },
    // The global watch list matters only to probe-only targets; each node's own is written out below.
    ...(probeWatch ? { watch: describeWatch(probeWatch) } : {}),
    nodes: c.nodes.map(describeNode),
    data_api: {
      enabled: c.dataApi.enabled,
      ...(c.dataApi.url !== undefined ? { url: redactUrlText(c.dataApi.url) } : {}),
      ...(c.dataApi.network !== undefined ? { network: c.dataApi.network } : {}),
      ...(c.dataApi.keyFile !== undefined ? { key_file: c.dataApi.keyFile } : {}),
      key_header: c.dataApi.keyHeader,
      rate_limit: c.dataApi.rateLimitPerMinute,
      interval: formatDuration(c.dataApi.intervalMs),
      max_pages: c.dataApi.maxPages,
    },
    probe: {
      targets: c.probe.targets.map((t) => redactUrlText(t.url)),
      max_targets: c.probe.maxTargets,
      idle_timeout: formatDuration(c.probe.idleTimeoutMs),
    },
    ...(c.nodes.some((n) => n.addresses?.length) || c.dataApi.addresses?.length
      ? {
          addresses: [
            ...c.nodes.flatMap((n) => (n.addresses ?? []).map((a) => describeAddress(a, n.name))),
            ...(c.dataApi.addresses ?? []).map((a) => describeAddress(a, undefined)),
          ],
        }
      : {}),
    log: { level: c.log.level, format: c.log.format },
    demo: c.demo,
  };
  // No anchors: a list shared by two nodes is written out twice, as an operator would.
  const doc = new Document(body, { aliasDuplicateObjects: false });
  doc.commentBefore = [
    ' avax-exporter configuration as --config.check read it: every default filled in; --config.file reads this file back.',
    ` Secrets are not shown: ${REDACTED} stands for one (write it back before use).`,
  ].join('\n');
  const dataApi = doc.get('data_api', true);
  const notes: string[] = [];
  if (c.dataApi.url === undefined) notes.push(`url is not set: ${c.demo ? 'the built-in demo Data API' : `the public service, ${DEFAULT_DATA_API_URL}`}`);
  if (c.dataApi.network === undefined) notes.push("network is not set: the polled nodes' network");
  if (c.dataApi.key !== undefined && c.dataApi.keyFile === undefined) notes.push(`the API key: ${REDACTED}, from ${DATA_API_KEY_ENV}`);
  else if (c.dataApi.key === undefined) notes.push(`no API key (set ${DATA_API_KEY_ENV} or key_file for a higher rate limit)`);
  commentAt(dataApi, 'key_header', notes);
  return doc.toString();
}
