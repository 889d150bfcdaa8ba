export type { BackendConfig } from './config.js';
export * from './definition.js';
export * from './service.js';
