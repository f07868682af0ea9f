/**
 * The status view of the landing page: its pure rendering checked as strings
 * (levels, thresholds that agree with the alert rules, bounded rows,
 * escaping, the Data API view), and the page itself in headless Chromium
 * (Debian's chromium driven by playwright-core) against a fake node and a
 * fake Data API: visible text, computed colours, live updates, the page
 * without script, and a screenshot. Chromium missing is a failure, not a
 * skip: `npm test` installs it first (test/tools/provision.sh).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { chromium, type Browser, type Page } from 'playwright-core';
import { StateStore } from '../state/store.js';
import { FakeDataApi } from '../../test/fakes/fake-data-api.js';
import { FIXTURE_IDS } from '../../test/fakes/fake-data.js';
import type { FakeL1Validator } from '../../test/fakes/fake-node.js';
import { PRIMARY_NETWORK_ID, type ValidatorRecord, type ValidatorsValue } from '../sources/node/validators/index.js';
import type { HealthValue } from '../sources/node/health/index.js';
import type { DataApiBlocksValue } from '../sources/data-api/blocks/value.js';
import type { DataApiValidatorsValue } from '../sources/data-api/validators/value.js';
import { downtimeBudgetSeconds, rewardUptimeThreshold } from '../domain/rules.js';
import { renderLanding } from './landing.js';
import {
  MAX_ROWS,
  STATUS_THRESHOLDS,
  downtimeBudgetLevel,
  formatDuration,
  l1BalanceLevel,
  l1RunwayLevel,
  nodeAnchor,
  renderFleetSummary,
  renderNodeStatus,
  timeLeftLevel,
  uptimeLevel,
  worstLevel,
} from './status-page.js';
import { ROOT } from '../../test/helpers/promql-contract.js';
import { perTestResources, waitUntilAllUp } from '../../test/helpers/daemon.js';

const DAY = 86_400;
const NOW_S = 1_800_000_000;
const NOW_MS = NOW_S * 1000;
const L1 = FIXTURE_IDS.l1SubnetId;

function record(nodeId: string, over: Partial<ValidatorRecord> = {}): ValidatorRecord {
  return {
    nodeId,
    weight: 1n,
    startTime: NOW_S - 100 * DAY,
    endTime: NOW_S + 100 * DAY,
    validationId: undefined,
    balance: undefined,
    potentialReward: undefined,
    delegationFeeRatio: undefined,
    uptimeRatio: 0.99,
    connected: true,
    delegatorCount: undefined,
    delegatorWeight: undefined,
    nextPeriod: undefined,
    autoCompoundRewardShares: undefined,
    ...over,
  };
}

/** Source states as the daemon keeps them: recorded through a real store. */
function statesOf(values: { node: string; source: string; value?: unknown; error?: string }[]) {
  const store = new StateStore();
  for (const v of values) {
    if (v.value !== undefined) store.record(v.node, v.source, { ok: true, value: v.value, startedMs: NOW_MS - 2_000, durationMs: 10 });
    if (v.error !== undefined) {
      store.record(v.node, v.source, {
        ok: false,
        error: Object.assign(new Error(v.error), { reason: 'timeout' }) as never,
        startedMs: NOW_MS - 1_000,
        durationMs: 10,
      });
    }
  }
  return store.all();
}

const health = (checks: HealthValue['checks']): HealthValue => ({
  healthy: checks.every((c) => c.passing),
  partialSync: false,
  ready: true,
  live: true,
  checks,
});
const passing = (name: string) => ({ name, passing: true, contiguousFailures: 0, failingSince: undefined });

describe('status view (pure rendering)', () => {
  it('turns amber and red where the alert rules do', () => {
    const rules = parse(readFileSync(resolve(ROOT, 'alerts/avax-exporter.rules.yml'), 'utf8')) as { groups: { rules: { record?: string; expr: string }[] }[] };
    const threshold = (name: string) => {
      const rule = rules.groups.flatMap((g) => g.rules).find((r) => r.record === `avax:threshold:${name}`);
      const m = /vector\(([\d.]+)\)/.exec(rule?.expr ?? '');
      if (!m) throw new Error(`no threshold ${name} in the alert rules`);
      return Number(m[1]);
    };
    expect(threshold('uptime_warning_margin_ratio')).toBeCloseTo(STATUS_THRESHOLDS.uptimeWarningMarginRatio, 9);
    expect(STATUS_THRESHOLDS.downtimeBudgetWarningSeconds).toBe(threshold('downtime_budget_warning_seconds'));
    // A spent budget is red here, as AvaxValidatorRewardLost says it (info: nothing to page for).
    expect(STATUS_THRESHOLDS.downtimeBudgetCriticalSeconds).toBe(0);
    expect(STATUS_THRESHOLDS.validationEndingWarningSeconds).toBe(threshold('validation_ending_warning_seconds'));
    expect(STATUS_THRESHOLDS.l1BalanceWarningAvax).toBe(threshold('l1_validator_balance_warning_avax'));
    expect(STATUS_THRESHOLDS.l1BalanceCriticalAvax).toBe(threshold('l1_validator_balance_critical_avax'));
    expect(STATUS_THRESHOLDS.l1RunwayWarningSeconds).toBe(threshold('l1_validator_runway_warning_seconds'));
    expect(STATUS_THRESHOLDS.l1RunwayCriticalSeconds).toBe(threshold('l1_validator_runway_critical_seconds'));

    // The boundaries, as the rules compare (`<`, and `<=` for a used-up budget).
    expect([0.79, 0.8, 0.849, 0.85, 0.99].map((u) => uptimeLevel(u, 0.8))).toEqual(['crit', 'warn', 'warn', 'ok', 'ok']);
    expect([0.89, 0.9, 0.95].map((u) => uptimeLevel(u, 0.9))).toEqual(['crit', 'warn', 'ok']);
    expect([-1, 0, 1, DAY - 1, DAY].map(downtimeBudgetLevel)).toEqual(['crit', 'crit', 'warn', 'warn', 'ok']);
    expect([-1, 0, 1, DAY - 1, DAY, 7 * DAY - 1, 7 * DAY].map((s) => timeLeftLevel(s))).toEqual(['crit', 'crit', 'warn', 'warn', 'warn', 'warn', 'ok']);
    // An auto-renewing validation's end is the end of a cycle, as AvaxValidationEndingSoon has it.
    expect([DAY - 1, 7 * DAY - 1].map((s) => timeLeftLevel(s, true))).toEqual(['ok', 'ok']);
    expect([0, 0.09, 0.1, 0.99, 1].map(l1BalanceLevel)).toEqual(['crit', 'crit', 'warn', 'warn', 'ok']);
    expect([DAY, 7 * DAY, 30 * DAY - 1, 30 * DAY].map(l1RunwayLevel)).toEqual(['crit', 'warn', 'warn', 'ok']);
    expect(worstLevel([])).toBe('none');
    expect(worstLevel(['ok', 'none', 'warn', 'ok'])).toBe('warn');
    expect(worstLevel(['warn', 'crit', 'ok'])).toBe('crit');
    expect([42, 125, 3 * 3600 + 120, 2 * DAY + 5 * 3600, -90].map(formatDuration)).toEqual(['42s', '2m 5s', '3h 2m', '2d 5h', '1m 30s']);
  });

  it('shows health checks, failing first, with FAIL/PASS labels and escaped names', () => {
    const evil = '<img src=x onerror=alert(1)>';
    const states = statesOf([
      {
        node: 'n1',
        source: 'health',
        value: health([passing('bootstrapped'), { name: evil, passing: false, contiguousFailures: 4, failingSince: NOW_S - 300 }]),
      },
    ]);
    const html = renderNodeStatus('n1', { states, nowMs: NOW_MS });
    expect(html).not.toContain(evil);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    const failing = html.indexOf('data-check="&lt;img');
    expect(failing).toBeGreaterThan(-1);
    expect(failing).toBeLessThan(html.indexOf('data-check="bootstrapped"')); // failing checks first
    expect(html).toMatch(
      /data-check="&lt;img[^>]*><td><code>[^<]*<\/code><\/td><td class="lvl crit" data-field="check"><b>FAIL<\/b><\/td><td>[^<]*\(for 5m 0s\)<\/td><td>4<\/td><\/tr>/,
    );
    expect(html).toMatch(/data-check="bootstrapped"><td><code>bootstrapped<\/code><\/td><td class="lvl ok" data-field="check"><b>PASS<\/b><\/td>/);
    expect(html).toContain('<span class="badge lvl crit" data-field="healthy"><b>CRIT</b> not healthy</span>');
    expect(html).toContain('<span class="badge lvl ok" data-field="sources"><b>OK</b> 1/1 sources up</span>');
    // The fleet summary says the same, and links to the node's section.
    const summary = renderFleetSummary({ states, nowMs: NOW_MS, nodes: [{ name: 'n1', url: 'http://x' }], refreshSeconds: 15 });
    expect(summary).toContain(`<a href="#${nodeAnchor('n1')}">n1</a></td><td class="lvl crit" data-field="node-status"><b>CRIT</b></td>`);
    expect(summary).toContain('CRIT: check &lt;img src=x onerror=alert(1)&gt; failing');
    expect(summary).toContain('updates every 15 s');
  });

  it('judges watched validators with the collectors’ requirement and downtime budget, and hides the rest of the set', () => {
    const near = record('NodeID-Near', { uptimeRatio: 0.83, startTime: NOW_S - 200 * DAY, endTime: NOW_S + 3 * DAY });
    const others = Array.from({ length: 120 }, (_, i) => record(`NodeID-Other${i}`));
    const v: ValidatorsValue = {
      subnets: [{ subnetId: PRIMARY_NETWORK_ID, validators: [...others, near], watched: ['NodeID-Near', 'NodeID-Gone'], omitted: 7 }],
      observedAt: NOW_S,
    };
    const html = renderNodeStatus('n1', { states: statesOf([{ node: 'n1', source: 'validators', value: v }]), nowMs: NOW_MS });
    expect(html.match(/<tr data-validator=/g)).toHaveLength(2); // watched only, not the 120 others
    expect(html).toContain('120 other validators of the primary network (--watch.all-validators) are not shown here');
    expect(html).toContain('7 validators over --watch.max-validators are neither shown nor exported');
    const threshold = rewardUptimeThreshold(near.startTime, undefined);
    const budget = downtimeBudgetSeconds(near, threshold, NOW_S) ?? NaN;
    expect(budget).toBeGreaterThan(0);
    expect(html).toContain('<td class="lvl warn" data-field="uptime"><b>WARN</b> 83.00 %</td><td>80.00 %</td>');
    expect(html).toContain(
      `<td class="lvl ${downtimeBudgetLevel(budget)}" data-field="budget"><b>${downtimeBudgetLevel(budget).toUpperCase()}</b> ${formatDuration(budget)}</td>`,
    );
    expect(html).toContain('<td class="lvl warn" data-field="time-left"><b>WARN</b> 3d 0h (ends ');
    expect(html).toContain('<td class="lvl ok" data-field="connected"><b>OK</b> yes</td>');
    expect(html).toMatch(
      /data-validator="NodeID-Gone"[^>]*><td><code>NodeID-Gone<\/code><\/td><td class="lvl crit" data-field="status"><b>CRIT<\/b><\/td><td colspan="5">not in this node's current validator set/,
    );

    // After the ACP-267 upgrade the same uptime is under a 90 % requirement, and a lost budget says so.
    const after: ValidatorsValue = {
      ...v,
      subnets: [{ subnetId: PRIMARY_NETWORK_ID, validators: [near], watched: ['NodeID-Near'], omitted: 0 }],
      rewardUptimeUpgradeTime: near.startTime - 1,
    };
    const html2 = renderNodeStatus('n1', { states: statesOf([{ node: 'n1', source: 'validators', value: after }]), nowMs: NOW_MS });
    expect(html2).toContain('<td class="lvl crit" data-field="uptime"><b>CRIT</b> 83.00 %</td><td>90.00 %</td>');
    expect(html2).toMatch(/data-field="budget"><b>CRIT<\/b> reward lost \(over by \d+d \d+h\)<\/td>/);
  });

  it("does not judge a node's own id, watched by default, while it validates nothing (an RPC or partial-sync node)", () => {
    const v: ValidatorsValue = {
      subnets: [{ subnetId: PRIMARY_NETWORK_ID, validators: [], watched: ['NodeID-Rpc'], omitted: 0 }],
      observedAt: NOW_S,
      operatorWatched: { ids: ['NodeID-Rpc'], ownIdByDefault: true },
    };
    const states = statesOf([{ node: 'rpc', source: 'validators', value: v }]);
    const html = renderNodeStatus('rpc', { states, nowMs: NOW_MS });
    expect(html).toContain(
      `<tr data-validator="NodeID-Rpc" data-subnet="${PRIMARY_NETWORK_ID}"><td><code>NodeID-Rpc</code></td><td class="lvl none" data-field="status"><b>N/A</b></td><td colspan="5">not a primary-network validator`,
    );
    const summary = renderFleetSummary({ states, nowMs: NOW_MS, nodes: [{ name: 'rpc', url: 'http://x' }] });
    expect(summary).toContain('<td class="lvl ok" data-field="node-status"><b>OK</b></td><td></td></tr>');
    // The same id given with --watch.node-id is the operator's validator: its absence is judged.
    const explicit = renderNodeStatus('rpc', {
      states: statesOf([{ node: 'rpc', source: 'validators', value: { ...v, operatorWatched: { ids: ['NodeID-Rpc'], ownIdByDefault: false } } }]),
      nowMs: NOW_MS,
    });
    expect(explicit).toContain('<td class="lvl crit" data-field="status"><b>CRIT</b></td><td colspan="5">not in this node\'s current validator set');
  });

  it('shows L1 balance runway from the collector, watched and shortest runway first, bounded', () => {
    const price = 512;
    const l1Row = (nodeId: string, balance: bigint, i: number) =>
      record(nodeId, { validationId: `V${i}`, balance, endTime: undefined, uptimeRatio: undefined, connected: undefined });
    const rows = Array.from({ length: MAX_ROWS + 10 }, (_, i) => l1Row(`NodeID-L${i}`, BigInt(price * DAY) * BigInt(40 + i), i));
    const mine = l1Row('NodeID-Mine', BigInt(price * DAY * 2), 999);
    const v: ValidatorsValue = {
      subnets: [
        { subnetId: PRIMARY_NETWORK_ID, validators: [], watched: ['NodeID-Mine'], omitted: 0 },
        {
          subnetId: L1,
          validators: [...rows, l1Row('NodeID-Short', BigInt(price * 10 * DAY), 1000), mine, l1Row('NodeID-Off', 0n, 1001)],
          watched: [],
          omitted: 0,
        },
      ],
      observedAt: NOW_S,
      feePriceNavaxPerSecond: price,
    };
    const html = renderNodeStatus('n1', { states: statesOf([{ node: 'n1', source: 'validators', value: v }]), nowMs: NOW_MS });
    const l1Rows = [...html.matchAll(/<tr data-l1-validation="([^"]+)"/g)].map((m) => m[1]);
    expect(l1Rows).toHaveLength(MAX_ROWS);
    expect(l1Rows.slice(0, 3)).toEqual(['V999', 'V1000', 'V0']); // watched, then the shortest runway
    expect(l1Rows).not.toContain('V1001'); // inactive ones last, past the bound here
    expect(html).toContain('13 more validators of this L1 are not shown');
    // Runway = balance / price, 2 days: red, and so is a 0.0885 AVAX balance.
    expect(html).toMatch(
      /data-l1-validation="V999"[^>]*>.*<td class="lvl crit" data-field="balance"><b>CRIT<\/b> 0\.0885 AVAX<\/td><td class="lvl crit" data-field="runway"><b>CRIT<\/b> 2\.0 days<\/td>/,
    );
    expect(html).toMatch(/data-l1-validation="V1000"[^>]*>.*data-field="runway"><b>WARN<\/b> 10\.0 days<\/td>/);
    expect(html).toContain('Fee price 512 nAVAX per second');

    // Without a fee price there is no runway to show, only the balance.
    const noPrice = renderNodeStatus('n2', {
      states: statesOf([{ node: 'n2', source: 'validators', value: { ...v, feePriceNavaxPerSecond: undefined } }]),
      nowMs: NOW_MS,
    });
    expect(noPrice).toContain('<td class="lvl none" data-field="runway"><b>N/A</b> unknown (no fee price)</td>');
  });

  it('shows the Data API view with the reward requirement a node reported, and says when a source is down', () => {
    const upgradeAt = NOW_S - 50 * DAY;
    const nodeValidators: ValidatorsValue = { subnets: [], rewardUptimeUpgradeTime: upgradeAt };
    const da: DataApiValidatorsValue = {
      network: 'mainnet',
      nodes: [
        {
          nodeId: 'NodeID-A',
          validations: [
            {
              txHash: 't',
              subnetId: PRIMARY_NETWORK_ID,
              status: 'active',
              startTimestamp: upgradeAt + 1,
              endTimestamp: NOW_S + 60 * DAY,
              amountStaked: 1n,
              uptimeRatio: 0.87,
              reachabilityRatio: 1,
              version: 'avalanchego/<1.14>',
            },
          ],
        },
        { nodeId: 'NodeID-B', validations: [] },
      ],
    };
    const blocks: DataApiBlocksValue = { network: 'mainnet', heads: [{ chain: 'P', height: 123n, timestampSeconds: NOW_S - 4 }] };
    const states = statesOf([
      { node: 'n1', source: 'validators', value: nodeValidators },
      { node: 'data_api', source: 'data_api_validators', value: da },
      { node: 'data_api', source: 'data_api_blocks', value: blocks, error: 'deadline exceeded' },
    ]);
    const html = renderNodeStatus('data_api', { states, nowMs: NOW_MS });
    expect(html).toContain('Validators as the Data API sees them (mainnet, primary network)');
    // Started after the upgrade: 87 % is under the 90 % requirement.
    expect(html).toMatch(
      /data-da-validator="NodeID-A">.*data-field="da-status"><b>OK<\/b> active<\/td><td class="lvl crit" data-field="da-uptime"><b>CRIT<\/b> 87\.00 % \(needs 90\.00 %\)<\/td>/,
    );
    expect(html).toContain('avalanchego/&lt;1.14&gt;');
    expect(html).toMatch(/data-da-validator="NodeID-B">.*data-field="da-status"><b>CRIT<\/b> no validation known<\/td>/);
    expect(html).toMatch(/<tr data-da-chain="P"><td>P<\/td><td>123<\/td><td>[^<]*\(4s ago\)<\/td><\/tr>/);
    expect(html).toContain('<b>WARN</b> source data_api_blocks is down (timeout: deadline exceeded); showing values from 2s ago');
    expect(html).toContain('<span class="badge lvl warn" data-field="sources"><b>WARN</b> 1/2 sources up</span>');
  });

  it('keeps the landing page (links, sources table) and makes it live, with and without script', () => {
    const states = statesOf([{ node: 'n1', source: 'peers', error: 'boom' }]);
    const html = renderLanding({
      telemetryPath: '/metrics',
      version: '1.2.3',
      ready: true,
      nodes: [{ name: 'n1', url: 'http://a:9650' }],
      states,
      nowMs: NOW_MS,
      refreshSeconds: 2,
    });
    expect(html).toContain('href="/metrics"');
    expect(html).toContain('href="/-/healthy"');
    expect(html).toContain('href="/-/ready"');
    expect(html).toMatch(/<tr class="down"><td>peers<\/td><td>down<\/td>/);
    expect(html).toContain(`<h2 id="${nodeAnchor('n1')}">n1 <small>http://a:9650</small></h2>`);
    expect(html).toContain('<noscript><meta http-equiv="refresh" content="2"></noscript>');
    expect(html).toContain('setTimeout(tick,every);})();');
    expect(html).toContain('var every=2000;');
    expect(html).toContain(`<p id="live" class="live" data-rendered="${new Date(NOW_MS).toISOString()}">`);
    // A sub-second poll interval still refreshes at most once a second.
    expect(renderLanding({ telemetryPath: '/metrics', version: '1', ready: false, nodes: [], states: [], nowMs: NOW_MS, refreshSeconds: 0.5 })).toContain(
      'var every=1000;',
    );
  });
});

// ---------------------------------------------------------------------------------------------
// In a real browser
// ---------------------------------------------------------------------------------------------

/** Debian's chromium; CHROMIUM_PATH points elsewhere on other systems. */
const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
/** Where the screenshot goes (.tmp is git-ignored); `STATUS_PAGE_SCREENSHOT=docs/status-page.png` refreshes the one docs/http-endpoints.md shows. */
const SCREENSHOT = resolve(ROOT, process.env['STATUS_PAGE_SCREENSHOT'] ?? '.tmp/status-page.png');

const RED = 'rgb(207, 34, 46)';
const GREEN = 'rgb(26, 127, 55)';
const AMBER = 'rgb(125, 78, 0)';
const AMBER_BG = 'rgb(255, 248, 197)';

const { fakeNode, daemonFor } = perTestResources();

/**
 * Text and computed colours of the one element a selector finds. Looked up
 * and read in one script run: the live update swaps the body between two
 * protocol calls, so a located element could already be detached (and have
 * no style) when read.
 */
async function look(page: Page, selector: string): Promise<{ text: string; color: string; background: string }> {
  return page.evaluate((sel) => {
    // Runs in the page; the project's TypeScript has no DOM types, so what is used is typed here.
    interface El {
      textContent: string | null;
    }
    const win = globalThis as unknown as {
      document: { querySelectorAll(s: string): { length: number; [i: number]: El } };
      getComputedStyle(e: El): { color: string; backgroundColor: string };
    };
    const found = win.document.querySelectorAll(sel);
    const el = found[0];
    if (found.length !== 1 || !el) throw new Error(`${found.length} elements match ${sel}`);
    const cs = win.getComputedStyle(el);
    return { text: (el.textContent ?? '').trim(), color: cs.color, background: cs.backgroundColor };
  }, selector);
}

/** Headless Chromium; fails (the test fails, nothing is skipped) when it is not installed: CI installs it, so its absence is a broken machine. */
async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} not found: install Debian's chromium (apt-get install chromium), as npm test does when it may, or set CHROMIUM_PATH`);
  return chromium.launch({
    executablePath: CHROMIUM,
    // No sandbox as root in CI; no background traffic on a machine with a closed network.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

describe('status page in headless Chromium', () => {
  let browser: Browser | undefined;
  afterAll(async () => {
    await browser?.close();
  });

  it('shows the fleet with coloured, labelled cells, updates live, works without script, and is saved as a screenshot', { timeout: 60_000 }, async () => {
    browser = await launchChromium();
    const node = await fakeNode();
    const nowS = Math.floor(Date.now() / 1000);
    const self = node.state.primaryValidators.find((v) => v.nodeId === FIXTURE_IDS.nodeId);
    if (!self) throw new Error('fixture world has no self validator');
    // Near its threshold: 83 % against 80 %, three days left.
    Object.assign(self, { startTime: nowS - 200 * DAY, endTime: nowS + 3 * DAY, uptime: 83 });
    node.failCheck('network', 'not connected to enough stake');
    const l1Self = node.state.subnets[L1]?.validators.find((v): v is FakeL1Validator => 'validationId' in v && v.nodeId === FIXTURE_IDS.nodeId);
    if (!l1Self) throw new Error('fixture world has no own L1 validator');
    // Two days of fee at the fixture's price.
    l1Self.balance = BigInt(node.state.validatorFeeState.price) * BigInt(2 * DAY);
    const api = await FakeDataApi.start();
    try {
      const active = api.state.validations[FIXTURE_IDS.nodeId]?.find((v) => v.validationStatus === 'active');
      if (!active) throw new Error('fake Data API has no active validation');
      Object.assign(active, { startTimestamp: self.startTime, endTimestamp: self.endTime, uptimePerformance: 83 });
      const { daemon } = await daemonFor({
        nodes: [{ name: 'fake', url: node.url, watch: { subnet_ids: [L1] } }],
        // Chromium shares the machine: a round that misses its deadline must not expire the values the page is checked on.
        poll: { interval: '500ms', timeout: '400ms', max_age: '60s' },
        data_api: { enabled: true, url: api.url, interval: '500ms', rate_limit: 6000 },
      });
      await waitUntilAllUp(daemon);

      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto(`${daemon.url}/`);
      const check = 'tr[data-check="network"] [data-field="check"]';
      const uptime = `tr[data-validator="${FIXTURE_IDS.nodeId}"][data-subnet="${PRIMARY_NETWORK_ID}"] [data-field="uptime"]`;
      const runway = `tr[data-l1-validation="${FIXTURE_IDS.l1ValidationId}"] [data-field="runway"]`;
      const daStatus = `tr[data-da-validator="${FIXTURE_IDS.nodeId}"] [data-field="da-status"]`;
      // The Data API polls after the nodes' first round: wait for its row.
      await page.locator(daStatus).waitFor({ timeout: 10_000 });

      expect(await look(page, check)).toEqual({ text: 'FAIL', color: RED, background: 'rgb(255, 235, 233)' });
      expect(await look(page, 'tr[data-check="bootstrapped"] [data-field="check"]')).toMatchObject({ text: 'PASS', color: GREEN });
      expect(await look(page, uptime)).toEqual({ text: 'WARN 83.00 %', color: AMBER, background: AMBER_BG });
      expect(await look(page, `tr[data-validator="${FIXTURE_IDS.nodeId}"][data-subnet="${PRIMARY_NETWORK_ID}"] [data-field="time-left"]`)).toMatchObject({
        color: AMBER,
      });
      expect((await look(page, `tr[data-validator="${FIXTURE_IDS.nodeId}"][data-subnet="${PRIMARY_NETWORK_ID}"] [data-field="time-left"]`)).text).toMatch(
        /^WARN (2d 23h|3d 0h) \(ends /,
      );
      expect(await look(page, runway)).toEqual({ text: 'CRIT 2.0 days', color: RED, background: 'rgb(255, 235, 233)' });
      expect(await look(page, daStatus)).toMatchObject({ text: 'OK active', color: GREEN });
      expect(await look(page, `tr[data-da-validator="${FIXTURE_IDS.nodeId}"] [data-field="da-uptime"]`)).toMatchObject({
        text: 'WARN 83.00 % (needs 80.00 %)',
        color: AMBER,
      });
      expect(await look(page, '[data-field="healthy"]')).toMatchObject({ text: 'CRIT not healthy', color: RED });
      expect(await look(page, 'tr[data-node="fake"] [data-field="node-status"]')).toMatchObject({ text: 'CRIT', color: RED });
      expect(await page.locator('tr[data-node="fake"]').innerText()).toContain('check network failing');
      await expect(page.locator('tr[data-node="fake"] a').getAttribute('href')).resolves.toBe(`#${nodeAnchor('fake')}`);
      await expect(page.locator(`#${nodeAnchor('fake')}`).innerText()).resolves.toMatch(/^fake /);

      mkdirSync(dirname(SCREENSHOT), { recursive: true });
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
      const png = readFileSync(SCREENSHOT);
      expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a'); // the PNG signature
      expect(png.subarray(12, 16).toString('latin1')).toBe('IHDR');
      expect(png.readUInt32BE(16)).toBe(1280); // width: the viewport
      expect(png.readUInt32BE(20)).toBeGreaterThan(900); // height: the whole page, longer than one screen

      // Live: the page follows the state without being reloaded.
      await page.evaluate(() => Object.assign(globalThis, { notReloaded: true }));
      node.passCheck('network');
      self.uptime = 99.5;
      await expect.poll(async () => (await look(page, check)).text, { timeout: 10_000 }).toBe('PASS');
      expect(await look(page, check)).toMatchObject({ color: GREEN });
      await expect.poll(async () => look(page, uptime), { timeout: 10_000 }).toMatchObject({ text: 'OK 99.50 %', color: GREEN });
      expect(await look(page, '[data-field="healthy"]')).toMatchObject({ text: 'OK healthy', color: GREEN });
      expect(await page.evaluate(() => (globalThis as { notReloaded?: boolean }).notReloaded)).toBe(true);

      // Without script the page is complete, and a meta refresh keeps it current.
      const noScript = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } });
      const plain = await noScript.newPage();
      await plain.goto(`${daemon.url}/`);
      expect(await look(plain, runway)).toMatchObject({ text: 'CRIT 2.0 days', color: RED });
      expect(await look(plain, check)).toMatchObject({ text: 'PASS', color: GREEN });
      await expect(plain.locator('meta[http-equiv="refresh"]').getAttribute('content')).resolves.toBe('1');
      await noScript.close();

      // The exporter gone: the page keeps what it showed and says it is no longer updated.
      await daemon.stop();
      await expect.poll(async () => look(page, '#live'), { timeout: 10_000 }).toMatchObject({ color: RED });
      expect((await look(page, '#live')).text).toMatch(/^CRIT not updated since \d{4}-\d\d-\d\dT/);
      expect((await look(page, check)).text).toBe('PASS');
      await page.close();
    } finally {
      await api.stop();
    }
  });
});

describe('status view: the node apart from its L1s (issue 22)', () => {
  it('a report failing only for a tracked L1 is amber (the node itself is healthy); failing for the node itself, red', () => {
    const l1Only: HealthValue = {
      ...health([passing('P'), { name: 'L1chain', passing: false, contiguousFailures: 3, failingSince: NOW_S - 60 }]),
      primaryHealthy: true,
    };
    const html = renderNodeStatus('n1', { states: statesOf([{ node: 'n1', source: 'health', value: l1Only }]), nowMs: NOW_MS });
    expect(html).toContain('<span class="badge lvl warn" data-field="healthy"><b>WARN</b> node healthy, an L1 chain not</span>');
    const own: HealthValue = { ...l1Only, primaryHealthy: false };
    expect(renderNodeStatus('n1', { states: statesOf([{ node: 'n1', source: 'health', value: own }]), nowMs: NOW_MS })).toContain(
      '<span class="badge lvl crit" data-field="healthy"><b>CRIT</b> not healthy</span>',
    );
  });
});
