/** A deleted account's comments and the mentions of them go, as if they had deleted each (src/erasure.ts). */
export { userDeletedHandler } from '@recipes/runtime';
