/** A deleted account's recipes, posts, reactions and tags go, as if they had deleted each (src/erasure.ts). */
export { userDeletedHandler } from '@recipes/runtime';
