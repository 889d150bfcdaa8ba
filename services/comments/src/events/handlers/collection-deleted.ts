/** A deleted collection takes no more comments (collection directory). */
export { collectionDeletedHandler } from '@recipes/directory';
