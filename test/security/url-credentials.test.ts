/**
 * A `%` that is not percent-encoding in a node URL's credentials: a clear
 * configuration error (exit 2) wherever URLs are configured, and a reload
 * that cannot be applied changes nothing: no poller is stopped with its last
 * series left served.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildConfig, type Config } from '../../src/config/load.js';
import { startDaemon, testHandle } from '../../src/daemon.js';
import { FakeNode } from '../fakes/fake-node.js';
import { createLogger } from '../../src/log.js';
import { splitCredentials } from '../../src/scheduler.js';
import { problemsOf } from '../helpers/config.js';
import { eventually, LogCapture, scrape, valueOf } from '../helpers/daemon.js';

const BAD = 'http://alice:pa%ZZss@127.0.0.1:9650';
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

describe('percent-encoding in URL credentials', () => {
  it('is checked where the configuration is validated: nodes, probe.targets, data_api.url; the value is never shown', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ nodes: [{ url: BAD }] }, 'nodes[0].url: the password in the URL is not valid percent-encoding (write a literal % as %25; the value is not shown)'],
      [
        { nodes: [{ url: 'http://to%ken@127.0.0.1:9650' }] },
        'nodes[0].url: the user name in the URL is not valid percent-encoding (write a literal % as %25; the value is not shown)',
      ],
      [
        { probe: { targets: [BAD] } },
        'probe.targets[0]: the password in the URL is not valid percent-encoding (write a literal % as %25; the value is not shown)',
      ],
      [{ data_api: { url: BAD } }, 'data_api.url: the password in the URL is not valid percent-encoding (write a literal % as %25; the value is not shown)'],
    ];
    for (const [raw, problem] of cases) {
      const problems = problemsOf(() => buildConfig(raw));
      expect(problems).toEqual([problem]);
      expect(problems.join()).not.toContain('ZZ');
    }
    // Valid encodings pass, and are decoded for the Authorization header.
    const ok = buildConfig({ nodes: [{ url: 'http://alice:pa%25ss%40x@127.0.0.1:9650' }] });
    expect(splitCredentials(ok.nodes[0]?.url as string, {}).headers['authorization']).toBe(`Basic ${Buffer.from('alice:pa%ss@x').toString('base64')}`);
    // And the split never throws, whatever reaches it.
    expect(() => splitCredentials(BAD, {})).not.toThrow();
  });

  it('--config.check and start-up exit 2 with the error (no URIError, no stack trace)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'avax-exporter-pct-'));
    const file = join(dir, 'config.yml');
    writeFileSync(file, `nodes:\n  - url: ${BAD}\ndata_api:\n  enabled: false\nweb:\n  listen_address: 127.0.0.1:0\n`);
    for (const extra of [['--config.check'], []]) {
      const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', `--config.file=${file}`, ...extra], { encoding: 'utf8', timeout: 20_000 });
      expect(run.status, run.stderr).toBe(2);
      expect(run.stderr).toContain('nodes[0].url: the password in the URL is not valid percent-encoding');
      expect(run.stderr).not.toContain('URIError');
      expect(run.stderr).not.toContain('ZZ');
    }
  });

  it('a reload that cannot be applied stops no poller: the running node keeps polling and its series stay current', async () => {
    const node = await FakeNode.start();
    cleanups.push(() => node.stop());
    const logs = new LogCapture();
    const config = buildConfig({
      nodes: [{ name: 'a', url: node.url }],
      data_api: { enabled: false },
      web: { listen_address: '127.0.0.1:0' },
      poll: { interval: '300ms', timeout: '250ms', peers_interval: '0s' },
    });
    let next: () => Config = () => config;
    const daemon = await startDaemon(config, {
      logger: createLogger({ level: 'debug', format: 'json', destination: logs }),
      jitter: 0,
      reloadConfig: () => next(),
    });
    cleanups.push(() => daemon.stop());
    await testHandle(daemon).waitForRounds(1);
    const poller = testHandle(daemon).pollers[0];
    // Invalid in the file: refused by validation.
    next = () =>
      buildConfig({
        nodes: [{ name: 'a', url: BAD.replace('127.0.0.1:9650', new URL(node.url).host) }],
        data_api: { enabled: false },
        web: { listen_address: '127.0.0.1:0' },
        poll: { interval: '300ms', timeout: '250ms', peers_interval: '0s' },
      });
    const first = await daemon.reload();
    expect(first.ok).toBe(false);
    expect(first.message).toContain('not valid percent-encoding');
    // Past validation (a config built by hand): the changed node's poller cannot be built, so nothing is stopped.
    next = () => ({ ...config, nodes: [{ ...(config.nodes[0] as Config['nodes'][number]), url: 'http://a b' }] });
    const second = await daemon.reload();
    expect(second.ok).toBe(false);
    expect(testHandle(daemon).pollers[0]).toBe(poller);
    const rounds = poller?.completedRounds ?? 0;
    await eventually(() => (poller?.completedRounds ?? 0) >= rounds + 2, 5_000);
    // Still polled: a fault shows up as the source going down (a stopped poller would leave it up forever).
    node.setFault('info.peers', { kind: 'status', status: 502, body: 'down' });
    await eventually(async () => valueOf(await scrape(daemon), 'avax_source_up', { node: 'a', source: 'peers' }) === 0, 5_000);
    expect(valueOf(await scrape(daemon), 'avax_exporter_config_last_reload_successful')).toBe(0);
  });
});
