// The CPU one login costs, by part of the system: `logins` logins through the gateway, one at a time, with
// every process's CPU read before and after. Hashing the password is most of it, in the users service.
import { cpuPer, cpuSample } from './cpu.mjs';

export async function loginCost(system, { username, password }, { logins }) {
  const url = `${system.urlOf('gateway')}/api/auth/login`;
  const init = {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  };
  const [before, ownCpu] = [cpuSample(system), process.cpuUsage()];
  for (let i = 0; i < logins; i++) {
    const response = await fetch(url, init);
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`login ${i + 1} of ${logins}: ${response.status}`);
  }
  return cpuPer(logins, before, cpuSample(system), process.cpuUsage(ownCpu));
}
