/** A deleted account's collections and saved items go, as if they had deleted each (src/erasure.ts). */
export { userDeletedHandler } from '@recipes/runtime';
