import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

// promtool comes with Debian's prometheus package, which `npm test` installs where it is missing (scripts/setup.mjs).
const directory = fileURLToPath(new URL('../prometheus/', import.meta.url));
const rulesFile = `${directory}rules.yml`;
const testsFile = `${directory}rules.test.yml`;

interface RuleGroups {
  groups: Array<{ rules: Array<{ alert?: string; record?: string; expr: string }> }>;
}
interface Dashboard {
  panels: Array<{ title: string; targets?: Array<{ expr: string }> }>;
}

const metricsSources = fileURLToPath(new URL('../../libs/metrics/src/', import.meta.url));
/**
 * What libs/metrics defines: every name is written `${METRIC_PREFIX}name`, or passed as 'name' to a helper that adds
 * the prefix.
 */
const metricsCode = readdirSync(metricsSources)
  .map((file) => readFileSync(join(metricsSources, file), 'utf8'))
  .join('\n');

/** The project's metrics an expression reads, as libs/metrics names them (no prefix, no histogram suffix). */
function projectMetricsIn(expression: string): string[] {
  return [...expression.matchAll(/\brecipes_(\w+)/g)].map(([, name]) => name!.replace(/_(bucket|count|sum)$/, ''));
}

function expectDefined(expression: string, where: string): void {
  for (const name of projectMetricsIn(expression)) {
    expect(
      metricsCode.includes(`\${METRIC_PREFIX}${name}\``) || metricsCode.includes(`'${name}'`),
      `${where}: recipes_${name} is not defined in libs/metrics`,
    ).toBe(true);
  }
}
interface RuleTests {
  tests: Array<{ alert_rule_test?: Array<{ alertname: string; exp_alerts: unknown[] }> }>;
}

function promtool(...args: string[]): string {
  try {
    return execFileSync('promtool', args, { cwd: directory, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const { code, stdout, stderr } = error as { code?: string; stdout?: string; stderr?: string };
    if (code === 'ENOENT')
      throw new Error("promtool is missing: install Debian's prometheus package (apt-get install prometheus)");
    throw new Error(`promtool ${args.join(' ')} failed:\n${stdout ?? ''}${stderr ?? ''}`);
  }
}

describe('the Prometheus rules (deploy/prometheus)', () => {
  it('pass promtool’s check', () => {
    expect(promtool('check', 'rules', rulesFile)).toMatch(/SUCCESS: \d+ rules found/);
  });

  it('pass their unit tests', () => {
    expect(promtool('test', 'rules', testsFile)).toContain('SUCCESS');
  });

  it('have a unit test for every alert, seeing it both fire and stay quiet', () => {
    const rules = parse(readFileSync(rulesFile, 'utf8')) as RuleGroups;
    const alerts = rules.groups.flatMap((group) => group.rules.map((rule) => rule.alert ?? `record ${rule.record}`));
    expect(alerts.length).toBeGreaterThanOrEqual(8);
    const cases = (parse(readFileSync(testsFile, 'utf8')) as RuleTests).tests.flatMap(
      (test) => test.alert_rule_test ?? [],
    );
    for (const alert of alerts) {
      const own = cases.filter((testCase) => testCase.alertname === alert);
      expect(
        own.some((testCase) => testCase.exp_alerts.length > 0),
        `${alert} fires in a test`,
      ).toBe(true);
      expect(
        own.some((testCase) => testCase.exp_alerts.length === 0),
        `${alert} stays quiet in a test`,
      ).toBe(true);
    }
  });

  it('read only metrics libs/metrics defines', () => {
    const rules = parse(readFileSync(rulesFile, 'utf8')) as RuleGroups;
    for (const rule of rules.groups.flatMap((group) => group.rules))
      expectDefined(rule.expr, rule.alert ?? rule.record ?? '');
  });
});

describe('the Grafana dashboard (deploy/grafana/dashboard.json)', () => {
  const dashboard = JSON.parse(
    readFileSync(new URL('../grafana/dashboard.json', import.meta.url), 'utf8'),
  ) as Dashboard;
  const queries = dashboard.panels.flatMap((panel) =>
    (panel.targets ?? []).map((target) => ({ panel: panel.title, expr: target.expr })),
  );

  it('shows the request path and the event path, from metrics libs/metrics defines', () => {
    const read = new Set(queries.flatMap(({ expr }) => projectMetricsIn(expr)));
    for (const name of [
      'http_request_duration_seconds',
      'outbox_oldest_event_age_seconds',
      'event_queue_messages',
      'event_handler_duration_seconds',
      'dead_letter_queue_messages',
    ]) {
      expect(read, name).toContain(name);
    }
    for (const { panel, expr } of queries) expectDefined(expr, panel);
  });

  it('has queries Prometheus parses (checked by promtool as recording rules)', () => {
    const scratch = mkdtempSync(join(tmpdir(), 'recipes-dashboard-'));
    try {
      const file = join(scratch, 'dashboard-rules.yml');
      const rules = queries.map(({ expr }, index) => ({ record: `dashboard:query:${index}`, expr }));
      writeFileSync(file, JSON.stringify({ groups: [{ name: 'dashboard', rules }] }));
      expect(promtool('check', 'rules', file)).toContain(`SUCCESS: ${rules.length} rules found`);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
