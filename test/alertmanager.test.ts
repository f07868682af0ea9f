/**
 * The Alertmanager configuration shipped in examples/alertmanager: checked by
 * Alertmanager's own amtool, identical to the inhibitions the runbook shows,
 * and run in a real Alertmanager (Debian's prometheus-alertmanager, which
 * npm test installs first) to see what each inhibition mutes and what it must
 * not: a wallet's page never mutes another wallet, a node down mutes its own
 * sources only, and two environments stay apart.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ROOT } from './helpers/promql-contract.js';
import { stopProcess } from './helpers/prometheus.js';
import { checkAlertmanagerInstalled, startAlertmanager, type Alertmanager } from './helpers/alertmanager.js';

const CONFIG = resolve(ROOT, 'examples/alertmanager/alertmanager.yml');
const AMTOOL = process.env['AMTOOL'] ?? 'amtool';

/** Labels of an alert that carries the identifying labels the inhibitions compare. */
type Labels = Record<string, string>;

describe('examples/alertmanager/alertmanager.yml', () => {
  it("passes Alertmanager's own check (amtool check-config) with every inhibition", () => {
    const out = execFileSync(AMTOOL, ['check-config', CONFIG], { encoding: 'utf8' });
    expect(out).toMatch(/SUCCESS/);
    expect(out).toMatch(/5 inhibit rules/);
  });

  it('holds exactly the inhibitions the runbook shows, each matching on every identifying label', () => {
    const runbook = readFileSync(resolve(ROOT, 'docs/runbook.md'), 'utf8');
    const block = /## Inhibition[\s\S]*?```yaml\n([\s\S]*?)```/.exec(runbook)?.[1];
    expect(block).toBeDefined();
    const shown = parse(block ?? '') as { inhibit_rules: unknown[] };
    const shipped = parse(readFileSync(CONFIG, 'utf8')) as { inhibit_rules: { equal: string[]; source_matchers: string[] }[] };
    expect(shipped.inhibit_rules).toEqual(shown.inhibit_rules);
    const bySeverity = shipped.inhibit_rules.find((r) => r.source_matchers.includes('severity="critical"'));
    for (const label of ['alertname', 'cluster', 'node', 'node_id', 'subnet', 'validation_id', 'network', 'chain', 'address'])
      expect(bySeverity?.equal).toContain(label);
  });

  describe('in a real Alertmanager', () => {
    let dir = '';
    let am: Alertmanager | undefined;
    let url = '';

    beforeAll(async () => {
      checkAlertmanagerInstalled();
      dir = mkdtempSync(join(tmpdir(), 'avax-am-'));
      am = await startAlertmanager(dir, CONFIG);
      url = am.url;
    }, 30_000);

    afterAll(async () => {
      if (am) await stopProcess(am.child);
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('mutes what each inhibition explains, and nothing else', async () => {
      const P = '11111111111111111111111111111111LpoYY';
      const alerts: Record<string, Labels> = {
        walletPage: { alertname: 'AvaxAddressBalanceBelowFloor', severity: 'critical', network: 'mainnet', chain: 'C', address: '0xa', alias: 'relayer' },
        walletWarn: { alertname: 'AvaxAddressBalanceBelowFloor', severity: 'warning', network: 'mainnet', chain: 'C', address: '0xa', alias: 'relayer' },
        otherWalletWarn: { alertname: 'AvaxAddressBalanceBelowFloor', severity: 'warning', network: 'mainnet', chain: 'C', address: '0xb', alias: 'bridge' },
        uptimePage: { alertname: 'AvaxValidatorUptimeLow', severity: 'critical', cluster: 'prod', node_id: 'NodeID-A', subnet: P },
        uptimeWarn: { alertname: 'AvaxValidatorUptimeLow', severity: 'warning', cluster: 'prod', node_id: 'NodeID-A', subnet: P },
        otherValidatorWarn: { alertname: 'AvaxValidatorUptimeLow', severity: 'warning', cluster: 'prod', node_id: 'NodeID-B', subnet: P },
        nodeDown: { alertname: 'AvaxNodeDown', severity: 'critical', cluster: 'prod', node: 'validator-1', node_id: 'NodeID-V' },
        // Another node watching the dead validator sees it disconnected: the same validator, one page.
        itsValidatorSeenDown: { alertname: 'AvaxValidatorNotConnected', severity: 'critical', cluster: 'prod', node_id: 'NodeID-V', subnet: P },
        otherValidatorSeenDown: { alertname: 'AvaxValidatorNotConnected', severity: 'critical', cluster: 'prod', node_id: 'NodeID-W', subnet: P },
        stagingValidatorSeenDown: { alertname: 'AvaxValidatorNotConnected', severity: 'critical', cluster: 'staging', node_id: 'NodeID-V', subnet: P },
        // A sidecar exporter that died with its node (NodeID-S): the validator alerts about it from other exporters are explained too.
        sidecarDown: { alertname: 'AvaxExporterDown', severity: 'critical', cluster: 'prod', job: 'avax-exporter', instance: 'side:9785', node_id: 'NodeID-S' },
        sidecarValidatorSeenDown: { alertname: 'AvaxValidatorNotConnected', severity: 'critical', cluster: 'prod', node_id: 'NodeID-S', subnet: P },
        itsSourceDown: {
          alertname: 'AvaxSourceDown',
          severity: 'warning',
          cluster: 'prod',
          node: 'validator-1',
          source: 'peers',
          job: 'avax-exporter',
          instance: 'exp:9785',
        },
        itsHealth: { alertname: 'AvaxNodeUnhealthy', severity: 'critical', cluster: 'prod', node: 'validator-1', job: 'avax-exporter', instance: 'exp:9785' },
        stagingSourceDown: {
          alertname: 'AvaxSourceDown',
          severity: 'warning',
          cluster: 'staging',
          node: 'validator-1',
          source: 'peers',
          job: 'avax-exporter',
          instance: 'exp2:9785',
        },
        otherNodeSourceDown: {
          alertname: 'AvaxSourceDown',
          severity: 'warning',
          cluster: 'prod',
          node: 'validator-2',
          source: 'peers',
          job: 'avax-exporter',
          instance: 'exp:9785',
        },
      };
      const startsAt = new Date().toISOString();
      const res = await fetch(`${url}/api/v2/alerts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(Object.values(alerts).map((labels) => ({ labels, startsAt }))),
      });
      expect(res.status).toBe(200);
      const inhibited = new Set<string>();
      const end = Date.now() + 10_000;
      // Inhibition is computed as the alerts are read back; wait until all are there.
      for (;;) {
        const got = (await (await fetch(`${url}/api/v2/alerts`)).json()) as { labels: Labels; status: { inhibitedBy: string[] } }[];
        if (got.length === Object.keys(alerts).length) {
          for (const [name, labels] of Object.entries(alerts)) {
            const a = got.find(
              (g) => Object.entries(labels).every(([k, v]) => g.labels[k] === v) && Object.keys(g.labels).length === Object.keys(labels).length,
            );
            if (a && a.status.inhibitedBy.length > 0) inhibited.add(name);
          }
          break;
        }
        if (Date.now() > end) throw new Error(`Alertmanager holds ${got.length} alerts`);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect([...inhibited].sort()).toEqual(
        ['itsHealth', 'itsSourceDown', 'itsValidatorSeenDown', 'sidecarValidatorSeenDown', 'uptimeWarn', 'walletWarn'].sort(),
      );
    });
  });
});
