/** A new collection becomes a target that can be commented on (collection directory). */
export { collectionCreatedHandler } from '@recipes/directory';
