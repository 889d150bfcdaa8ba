export * from './handlers.js';
export * from './service.js';
