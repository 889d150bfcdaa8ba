// The processes that make up the system, and the ports each listens on in development: its API, and
// its Prometheus metrics (also each service's config default).
export const services = [
  { name: 'users', port: 3001, metricsPort: 9101 },
  { name: 'content', port: 3002, metricsPort: 9102 },
  { name: 'comments', port: 3003, metricsPort: 9103 },
  { name: 'collections', port: 3004, metricsPort: 9104 },
  { name: 'notifications', port: 3005, metricsPort: 9105 },
  { name: 'gateway', port: 3000, metricsPort: 9100 },
];

/** How a process finds a service: the gateway reads USERS_URL, a service reads USERS_INTERNAL_URL. */
export function upstreamVariables(service, url) {
  const name = service.toUpperCase();
  return [
    [`${name}_URL`, url],
    [`${name}_INTERNAL_URL`, url],
  ];
}
