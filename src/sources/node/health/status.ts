import type { StatusSection } from '../../source.js';
import type { HealthValue } from './value.js';

/**
 * Healthy, ready and live as badges; every health check, failing first. A
 * report that fails only for the L1s the node tracks (the node's own health,
 * `primaryHealthy`, passes) is a warning: the L1 is degraded, not the node.
 */
export const healthStatus: StatusSection<HealthValue> = {
  order: 10,
  badges: (h, kit) => [
    h.healthy || h.primaryHealthy !== true
      ? kit.badge('healthy', kit.judge(h.healthy ? 'ok' : 'crit', 'node not healthy'), h.healthy ? 'healthy' : 'not healthy')
      : kit.badge('healthy', kit.judge('warn', 'an L1 chain check failing (the node itself is healthy)'), 'node healthy, an L1 chain not'),
    ...(
      [
        ['ready', h.ready],
        ['live', h.live],
      ] as const
    ).map(([name, ok]) => kit.badge(name, kit.judge(ok ? 'ok' : 'crit', `node not ${name}`), ok ? name : `not ${name}`)),
  ],
  section(h, kit, view) {
    // Failing checks first: they are what a reader comes for.
    const checks = [...h.checks].sort((x, y) => Number(x.passing) - Number(y.passing));
    const rows = checks.slice(0, kit.maxRows).map((c) => {
      const level = kit.judge(c.passing ? 'ok' : 'crit', `check ${c.name} failing`);
      const since = c.failingSince === undefined ? '' : `${kit.when(c.failingSince)} (for ${kit.formatDuration(view.nowMs / 1000 - c.failingSince)})`;
      return `<tr data-check="${kit.escape(c.name)}"><td><code>${kit.escape(c.name)}</code></td>${kit.cell('check', level, '', c.passing ? 'PASS' : 'FAIL')}${kit.td(since)}${kit.td(c.passing ? '' : String(c.contiguousFailures))}</tr>`;
    });
    const more = checks.length > kit.maxRows ? kit.note(`${checks.length - kit.maxRows} more checks are not shown; all are on /metrics.`) : '';
    return `<h3>Health checks</h3>\n${kit.table('checks', ['check', 'status', 'failing since', 'contiguous failures'], rows, 'the node reports no health checks')}${more}`;
  },
};
