// The campaign's two hosts: `a` runs the gateway and instance #0 of every backend service, `b` instance
// #1. What one host sends the other goes through a fault proxy per destination (the gateway to b's
// instances; each host's instances to the owners' internal look-ups on the other), so that the partition
// lane can cut the hosts from each other, as it cuts a host from the servers through the instances' own proxies.
import { createFaultProxy } from './proxy.mjs';

/** The host an instance runs on. */
export const hostOf = (instance) => (instance === 0 ? 'a' : 'b');

/**
 * The links between the hosts, one proxy per destination: `aToB` keyed by each backend service's public
 * and internal URL on b, `bToA` by each internal URL on a (every instance looks owners up on both).
 */
export async function linksBetweenHosts(addresses, backendServices) {
  const aToB = new Map();
  const bToA = new Map();
  for (const { name, internalPort } of backendServices) {
    aToB.set(addresses.urlOf(name, 1), await createFaultProxy(addresses.urlOf(name, 1)));
    if (!internalPort) continue;
    aToB.set(addresses.internalUrlOf(name, 1), await createFaultProxy(addresses.internalUrlOf(name, 1)));
    bToA.set(addresses.internalUrlOf(name, 0), await createFaultProxy(addresses.internalUrlOf(name, 0)));
  }
  return { aToB, bToA, all: () => [...aToB.values(), ...bToA.values()] };
}

/** `value`'s comma-separated URLs, each that `links` has a proxy for pointed at it (no trailing slash, as given). */
const through = (value, links) =>
  value
    .split(',')
    .map((url) => (links.has(url) ? links.get(url).url(url).replace(/\/$/, '') : url))
    .join(',');

/**
 * The settings of `service`'s instance `instance` whose URLs lead to the other host, pointed at the
 * links: the gateway's upstreams on b, and each instance's look-ups on the other host.
 */
export function settingsAcross(service, instance, env, links) {
  const gateway = service === 'gateway';
  const across = gateway || hostOf(instance) === 'a' ? links.aToB : links.bToA;
  const leadsAcross = (key) => key.endsWith('_URL') && key.endsWith('_INTERNAL_URL') !== gateway;
  return Object.fromEntries(
    Object.entries(env)
      .filter(([key]) => leadsAcross(key))
      .map(([key, value]) => [key, through(value, across)])
      .filter(([key, value]) => value !== env[key]),
  );
}
