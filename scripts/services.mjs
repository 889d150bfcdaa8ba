// The processes that make up the system, and the ports each listens on in development: its API, its
// routes for the other services where it has some, and its Prometheus metrics (also each service's
// config defaults).
export const services = [
  { name: 'users', port: 3001, internalPort: 3101, metricsPort: 9101 },
  { name: 'content', port: 3002, internalPort: 3102, metricsPort: 9102 },
  { name: 'comments', port: 3003, metricsPort: 9103 },
  { name: 'collections', port: 3004, internalPort: 3104, metricsPort: 9104 },
  { name: 'notifications', port: 3005, metricsPort: 9105 },
  { name: 'gateway', port: 3000, metricsPort: 9100 },
];

/** How a process finds a service: the gateway its public port (USERS_URL), services its internal one (USERS_INTERNAL_URL). */
export function upstreamVariables(service, { url, internalUrl }) {
  const name = service.toUpperCase();
  return [[`${name}_URL`, url], ...(internalUrl ? [[`${name}_INTERNAL_URL`, internalUrl]] : [])];
}
