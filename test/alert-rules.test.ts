/**
 * Runs the real promtool over the Prometheus rules and their unit tests, and
 * checks the conventions the runbook and the rule tests rely on.
 *
 * Needs promtool (Debian: `apt-get install prometheus`, /usr/bin/promtool);
 * set PROMTOOL to use another binary.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Rule, RuleGroup } from './helpers/promql-contract.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const RULES_FILE = join(ROOT, 'alerts', 'avax-exporter.rules.yml');
const TESTS_DIR = join(ROOT, 'alerts', 'tests');
const RUNBOOK_FILE = join(ROOT, 'docs', 'runbook.md');
const RUNBOOK_URL = 'https://github.com/avax-exporter/avax-exporter/blob/main/docs/runbook.md';
const PROMTOOL = process.env['PROMTOOL'] ?? 'promtool';
const PROMTOOL_TIMEOUT_MS = 120_000;
/** A rule unit test file's promtool run: the longest take about 50 s on a quiet machine, twice that when the suite shares its cores. */
const PROMTOOL_TEST_TIMEOUT_MS = 240_000;

interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], timeout = PROMTOOL_TIMEOUT_MS): Promise<RunResult> {
  return new Promise((done, fail) => {
    execFile(cmd, args, { cwd: ROOT, timeout, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err && typeof err.code !== 'number') {
        fail(new Error(`cannot run ${cmd} (${err.message}); install promtool (apt-get install prometheus) or set PROMTOOL`));
        return;
      }
      done({ code: err ? Number(err.code) : 0, stdout, stderr });
    });
  });
}

// ------------------------------------------------------------- rule model

interface AlertCase {
  eval_time: string;
  alertname: string;
  exp_alerts?: unknown[] | null;
}
interface TestFile {
  rule_files: string[];
  group_eval_order?: string[];
  tests: { name?: string; alert_rule_test?: AlertCase[] }[];
}

const groups = (parseYaml(readFileSync(RULES_FILE, 'utf8')) as { groups: RuleGroup[] }).groups;
const rules = groups.flatMap((g) => g.rules.map((r) => ({ ...r, group: g.name })));
const alerts = rules.filter((r): r is Rule & { alert: string; group: string } => typeof r.alert === 'string');
const alertNames = [...new Set(alerts.map((a) => a.alert))].sort();
const testFileNames = readdirSync(TESTS_DIR)
  .filter((f) => f.endsWith('.yml'))
  .sort();
const testFiles = testFileNames.map((f) => ({ file: f, doc: parseYaml(readFileSync(join(TESTS_DIR, f), 'utf8')) as TestFile }));

describe('promtool', () => {
  beforeAll(async () => {
    const v = await run(PROMTOOL, ['--version']);
    expect(v.code, `${PROMTOOL} --version failed: ${v.stderr}`).toBe(0);
  });

  it('check rules: the rules file is valid', { timeout: PROMTOOL_TIMEOUT_MS }, async () => {
    const r = await run(PROMTOOL, ['check', 'rules', RULES_FILE]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`SUCCESS: ${rules.length} rules found`));
  });

  it('test rules: there are rule unit tests', () => {
    expect(testFileNames.length).toBeGreaterThan(0);
  });

  // One promtool run per file, each with its own deadline: all of them in one run went past a single 120 s
  // deadline when the suite's other files shared the two cores. promtool evaluates every rule at each step of
  // the evaluation interval up to a group's last eval_time, so a long group gets a file of its own (a week at
  // 1m steps took validator.test.yml to three minutes of a quiet machine: validator-week.test.yml steps by 1h).
  it.each(testFileNames)('test rules: every rule unit test of %s passes', { timeout: PROMTOOL_TEST_TIMEOUT_MS }, async (f) => {
    const r = await run(PROMTOOL, ['test', 'rules', join(TESTS_DIR, f)], PROMTOOL_TEST_TIMEOUT_MS);
    const output = r.stdout + r.stderr;
    expect(r.code, output).toBe(0);
    expect(output).not.toMatch(/FAILED/);
    expect(output.match(/SUCCESS/g)?.length, output).toBe(1);
  });

  describe('negative control', () => {
    let dir = '';
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'avax-exporter-promtool-'));
    });
    afterAll(() => {
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('test rules fails on a wrong expectation', { timeout: PROMTOOL_TIMEOUT_MS }, async () => {
      // A healthy node must not raise AvaxNodeUnhealthy: expecting it must fail.
      const file = join(dir, 'wrong.test.yml');
      writeFileSync(
        file,
        [
          'rule_files:',
          `  - ${JSON.stringify(RULES_FILE)}`,
          'evaluation_interval: 1m',
          'tests:',
          '  - interval: 1m',
          '    input_series:',
          `      - series: 'avax_node_healthy{node="validator-1"}'`,
          `        values: '1x20'`,
          '    alert_rule_test:',
          '      - eval_time: 10m',
          '        alertname: AvaxNodeUnhealthy',
          '        exp_alerts:',
          '          - exp_labels: {severity: critical, node: validator-1}',
          '',
        ].join('\n'),
      );
      const r = await run(PROMTOOL, ['test', 'rules', file]);
      expect(r.code).not.toBe(0);
      expect(r.stdout + r.stderr).toMatch(/FAILED/);
    });
  });
});

describe('alert conventions', () => {
  const runbook = readFileSync(RUNBOOK_FILE, 'utf8');
  const runbookHeadings = new Set([...runbook.matchAll(/^##\s+(.+?)\s*$/gm)].map((m) => m[1]!.trim()));

  it('defines the expected alerts', () => {
    expect(alertNames).toEqual(
      [
        'AvaxAddressBalanceBelowFloor',
        'AvaxChainHeightStalled',
        'AvaxDataApiRateLimited',
        'AvaxExporterAbsent',
        'AvaxExporterDown',
        'AvaxL1ChainFailedToStart',
        'AvaxL1ChainStalled',
        'AvaxL1ChainUnhealthy',
        'AvaxL1PluginVersionMismatch',
        'AvaxL1ValidationNotFound',
        'AvaxL1ValidationUnwatched',
        'AvaxL1ValidatorBalanceLow',
        'AvaxL1ValidatorChainNotValidating',
        'AvaxL1ValidatorInactive',
        'AvaxL1ValidatorNotConnected',
        'AvaxL1ValidatorRunwayLow',
        'AvaxNetworkUpgradeSoon',
        'AvaxNodeBehindDataApi',
        'AvaxNodeConsensusStuck',
        'AvaxNodeDiskFillingUp',
        'AvaxNodeDiskSpaceLow',
        'AvaxNodeDown',
        'AvaxNodeHealthCheckFailing',
        'AvaxNodeLowConnectedStake',
        'AvaxNodeNetworkSilent',
        'AvaxNodeNotBootstrapped',
        'AvaxNodePublicIpChanged',
        'AvaxNodeSendFailRateHigh',
        'AvaxNodeUnhealthy',
        'AvaxNodeUpgradeNotReady',
        'AvaxNodeUpgradeUnknown',
        'AvaxNodeVersionBehindPeers',
        'AvaxSourceDataStale',
        'AvaxSourceDown',
        'AvaxValidationEndingSoon',
        'AvaxValidatorBenched',
        'AvaxValidatorDowntimeBudgetLow',
        'AvaxValidatorLeftSet',
        'AvaxValidatorNotConnected',
        'AvaxValidatorProposerDrought',
        'AvaxValidatorRewardDenied',
        'AvaxValidatorRewardLost',
        'AvaxValidatorUptimeLow',
      ].sort(),
    );
  });

  it.each(alerts.map((a) => [`${a.alert} (${a.labels?.['severity'] ?? '?'})`, a] as const))(
    '%s has a severity, summary, description and a runbook anchor',
    (_name, a) => {
      expect(['critical', 'warning', 'info']).toContain(a.labels?.['severity']);
      expect(a.annotations?.['summary']?.trim()).toBeTruthy();
      expect(a.annotations?.['description']?.trim()).toBeTruthy();
      expect(a.annotations?.['runbook_url']).toBe(`${RUNBOOK_URL}#${a.alert.toLowerCase()}`);
      expect(runbookHeadings.has(a.alert), `docs/runbook.md has no "## ${a.alert}" section`).toBe(true);
    },
  );

  it('alerts that share a name differ in severity', () => {
    for (const name of alertNames) {
      const sev = alerts.filter((a) => a.alert === name).map((a) => a.labels?.['severity']);
      expect(new Set(sev).size, name).toBe(sev.length);
    }
  });

  it('critical alerts keep firing after their evidence is gone (a dead node exports nothing)', () => {
    for (const a of alerts) {
      if (a.labels?.['severity'] === 'critical') expect((a as { keep_firing_for?: string }).keep_firing_for, a.alert).toBe('10m');
      else expect((a as { keep_firing_for?: string }).keep_firing_for, a.alert).toBeUndefined();
    }
  });

  it('every aggregation keeps the cluster label and every vector join on a node matches on it', () => {
    for (const r of rules) {
      for (const m of r.expr.matchAll(/\b(by|on)\s*\(([^)]*)\)/g)) {
        const labels = (m[2] ?? '')
          .split(',')
          .map((l) => l.trim())
          .filter(Boolean);
        // `on ()` joins against the unlabelled thresholds; `by ()` does not occur.
        if (labels.length === 0) continue;
        expect(labels, `${r.alert ?? r.record}: ${m[0]}`).toContain('cluster');
      }
    }
  });

  it("validator alerts judge only watched validators, and never a node's view of itself", () => {
    const watchedOnly = [
      'AvaxValidatorUptimeLow',
      'AvaxValidatorNotConnected',
      'AvaxValidationEndingSoon',
      'AvaxValidatorDowntimeBudgetLow',
      'AvaxValidatorRewardLost',
      'AvaxL1ValidatorBalanceLow',
      'AvaxL1ValidatorRunwayLow',
      'AvaxL1ValidatorInactive',
      'AvaxL1ValidatorChainNotValidating',
      'AvaxL1ValidatorNotConnected',
    ];
    for (const a of alerts.filter((x) => watchedOnly.includes(x.alert))) expect(a.expr, a.alert).toContain('avax_validator:watched:max');
    const byName = new Map(rules.filter((r) => r.record).map((r) => [r.record, r.expr]));
    for (const rec of ['avax_validator:uptime_ratio:observers_max', 'avax_validator:connected:max']) {
      expect(byName.get(rec), rec).toMatch(/unless on \(cluster, node, node_id\) avax_node_info/);
    }
    // The uptime alerts read the network's view only, not the raw per-node series.
    for (const a of alerts.filter((x) => x.alert === 'AvaxValidatorUptimeLow' || x.alert === 'AvaxValidatorDowntimeBudgetLow')) {
      expect(a.expr).not.toMatch(/avax_validator_uptime_ratio|avax_validator_downtime_budget_seconds/);
    }
  });

  describe('the environment label can be renamed with one sed', () => {
    // The rename docs/runbook.md gives: sed -E 's/\bcluster\b/env/g'
    const rename = (text: string) => text.replace(/\bcluster\b/g, 'env');
    const dir = mkdtempSync(join(tmpdir(), 'avax-exporter-env-'));
    beforeAll(() => {
      mkdirSync(join(dir, 'tests'));
      writeFileSync(join(dir, 'avax-exporter.rules.yml'), rename(readFileSync(RULES_FILE, 'utf8')));
      for (const f of testFileNames) writeFileSync(join(dir, 'tests', f), rename(readFileSync(join(TESTS_DIR, f), 'utf8')));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it(
      'outside comments `cluster` only stands in a by/on label list, and the renamed rules pass promtool check with no `cluster` left',
      { timeout: PROMTOOL_TIMEOUT_MS },
      async () => {
        // So a word-wise rename is safe.
        for (const line of readFileSync(RULES_FILE, 'utf8').split('\n')) {
          const code = line.replace(/#.*$/, '');
          for (const m of code.matchAll(/\bcluster\b/g)) expect(code.slice(0, m.index), line).toMatch(/\b(by|on)\s*\([^)]*$/);
        }
        const check = await run(PROMTOOL, ['check', 'rules', join(dir, 'avax-exporter.rules.yml')]);
        expect(check.code, check.stdout + check.stderr).toBe(0);
        expect(readFileSync(join(dir, 'avax-exporter.rules.yml'), 'utf8')).not.toMatch(/\bcluster\b/);
      },
    );

    // A unit test file that names neither label is the same file after the rename, and its series carry neither:
    // a rule that groups or matches by `cluster` (the only place it stands, checked above) then gives on them what
    // it gives by `env`, so promtool's verdict on that file is the one the shipped rules already get (the tests
    // above). Running those again would double promtool's share of the suite, the longest of any file, for nothing.
    const names = (text: string) => /\b(cluster|env)\b/.test(text);
    const renamedFiles = testFileNames.filter((f) => names(readFileSync(join(TESTS_DIR, f), 'utf8')));

    it('some unit test files name the label, and their renamed copies name env in its place', () => {
      expect(renamedFiles.length).toBeGreaterThan(0);
      for (const f of renamedFiles) {
        const renamed = readFileSync(join(dir, 'tests', f), 'utf8');
        expect(renamed, f).not.toMatch(/\bcluster\b/);
        expect(renamed, f).toMatch(/\benv="/);
      }
    });

    // One promtool run per file, each with its own deadline, as for the rules as shipped: all of them in one run
    // went past a single 120 s deadline on a loaded machine.
    it.each(renamedFiles)('the renamed unit tests of %s pass', { timeout: PROMTOOL_TEST_TIMEOUT_MS }, async (f) => {
      const tests = await run(PROMTOOL, ['test', 'rules', join(dir, 'tests', f)], PROMTOOL_TEST_TIMEOUT_MS);
      expect(tests.code, tests.stdout + tests.stderr).toBe(0);
      expect(tests.stdout + tests.stderr).not.toMatch(/FAILED/);
    });
  });

  it('only avax_exporter:up:selected selects on the job label, and the exporter-down alerts read it', () => {
    // One selector to change for a job named otherwise (a ServiceMonitor without jobLabel names its job after the Service).
    for (const r of rules) {
      const usesJob = /\bjob\s*=~?/.test(r.expr);
      const allowed = r.record === 'avax_exporter:up:selected';
      expect(usesJob, `${r.alert ?? r.record}: ${r.expr}`).toBe(allowed);
      if (allowed) expect(r.expr.trim()).toBe('up{job=~"avax-exporter.*"}');
    }
    const selector = rules.find((r) => r.record === 'avax_exporter:up:selected');
    expect(selector?.group).toBe('avax-exporter.exporter');
    for (const name of ['AvaxExporterDown', 'AvaxExporterAbsent']) {
      const a = alerts.find((x) => x.alert === name);
      expect(a?.expr, name).toMatch(/\bavax_exporter:up:selected\b/);
      expect(a?.expr, name).not.toMatch(/\bup\{/);
      // Evaluated after the record in the same group, so it reads this round's value.
      const g = groups.find((x) => x.name === 'avax-exporter.exporter')?.rules ?? [];
      expect(
        g.findIndex((r) => r.alert === name),
        name,
      ).toBeGreaterThan(g.findIndex((r) => r.record === 'avax_exporter:up:selected'));
    }
  });

  it('tunable thresholds come first, as plain vector(N) records', () => {
    const [first] = groups;
    expect(first?.name).toBe('avax-exporter.thresholds');
    expect(first?.rules.length).toBeGreaterThan(0);
    for (const r of first?.rules ?? []) {
      expect(r.record).toMatch(/^avax:threshold:[a-z0-9_]+$/);
      expect(r.expr.trim()).toMatch(/^vector\(\d+(\.\d+)?\)$/);
    }
    for (const g of groups.slice(1)) for (const r of g.rules) expect(r.record ?? '').not.toMatch(/^avax:threshold:/);
  });

  it('recording rules follow level:metric:operation naming', () => {
    for (const r of rules) if (r.record) expect(r.record).toMatch(/^avax[a-z_]*:[a-z0-9_]+:[a-z0-9_]+$/);
  });

  it('every test file loads the rules and pins the group evaluation order', () => {
    const groupNames = groups.map((g) => g.name);
    for (const { file, doc } of testFiles) {
      expect(doc.rule_files, file).toContain('../avax-exporter.rules.yml');
      // Alerts read threshold and recording rules evaluated in earlier groups.
      expect(doc.group_eval_order, file).toEqual(groupNames);
    }
  });

  it.each(alertNames)('%s is unit-tested both firing and not firing', (name) => {
    const cases = testFiles.flatMap(({ doc }) => doc.tests.flatMap((t) => t.alert_rule_test ?? [])).filter((c) => c.alertname === name);
    const firing = cases.filter((c) => (c.exp_alerts ?? []).length > 0);
    const silent = cases.filter((c) => (c.exp_alerts ?? []).length === 0);
    expect(firing.length, `${name}: no test case where it fires`).toBeGreaterThan(0);
    expect(silent.length, `${name}: no test case where it must not fire`).toBeGreaterThan(0);
  });

  it('every severity of a multi-severity alert is seen firing in a test', () => {
    const firedSeverities = new Map<string, Set<string>>();
    for (const { doc } of testFiles)
      for (const t of doc.tests)
        for (const c of t.alert_rule_test ?? [])
          for (const e of (c.exp_alerts ?? []) as { exp_labels?: Record<string, string> }[]) {
            const sev = e.exp_labels?.['severity'];
            if (!sev) continue;
            const set = firedSeverities.get(c.alertname) ?? new Set<string>();
            set.add(sev);
            firedSeverities.set(c.alertname, set);
          }
    for (const a of alerts) {
      expect(firedSeverities.get(a.alert)?.has(a.labels?.['severity'] ?? ''), `${a.alert} ${a.labels?.['severity']}`).toBe(true);
    }
  });
});
