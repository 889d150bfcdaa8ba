export * from './catalogue.js';
export * from './collections.js';
export * from './comments.js';
export * from './content.js';
export * from './envelope.js';
export * from './notifications.js';
export * from './users.js';

export * from './erasure.js';
