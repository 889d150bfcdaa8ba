/** A deleted account's inbox goes, and what they caused others is retracted (src/erasure.ts). */
export { userDeletedHandler } from '@recipes/runtime';
