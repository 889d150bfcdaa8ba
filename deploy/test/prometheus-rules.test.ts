import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

// promtool comes with Debian's prometheus package, which `npm test` installs where it is missing (scripts/setup.mjs).
const directory = fileURLToPath(new URL('../prometheus/', import.meta.url));
const rulesFile = `${directory}rules.yml`;
const testsFile = `${directory}rules.test.yml`;

interface RuleGroups {
  groups: Array<{ rules: Array<{ alert?: string; record?: string }> }>;
}
interface RuleTests {
  tests: Array<{ alert_rule_test?: Array<{ alertname: string; exp_alerts: unknown[] }> }>;
}

function promtool(...args: string[]): string {
  try {
    return execFileSync('promtool', args, { cwd: directory, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const { code, stdout, stderr } = error as { code?: string; stdout?: string; stderr?: string };
    if (code === 'ENOENT') throw new Error("promtool is missing: install Debian's prometheus package (apt-get install prometheus)");
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
    const cases = (parse(readFileSync(testsFile, 'utf8')) as RuleTests).tests.flatMap((test) => test.alert_rule_test ?? []);
    for (const alert of alerts) {
      const own = cases.filter((testCase) => testCase.alertname === alert);
      expect(own.some((testCase) => testCase.exp_alerts.length > 0), `${alert} fires in a test`).toBe(true);
      expect(own.some((testCase) => testCase.exp_alerts.length === 0), `${alert} stays quiet in a test`).toBe(true);
    }
  });
});
