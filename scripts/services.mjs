// The processes that make up the system, and the port each listens on in development.
export const services = [
  { name: 'users', port: 3001 },
  { name: 'content', port: 3002 },
  { name: 'comments', port: 3003 },
  { name: 'collections', port: 3004 },
  { name: 'notifications', port: 3005 },
  { name: 'gateway', port: 3000 },
];

/** How a process finds a service: the gateway reads USERS_URL, a service reads USERS_INTERNAL_URL. */
export function upstreamVariables(service, url) {
  const name = service.toUpperCase();
  return [
    [`${name}_URL`, url],
    [`${name}_INTERNAL_URL`, url],
  ];
}
