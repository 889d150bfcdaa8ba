export * from './asyncapi.js';
export * from './events/index.js';
export * from './http/index.js';
export * from './errors.js';
