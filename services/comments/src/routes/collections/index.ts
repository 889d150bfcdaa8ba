import { commentRoutes } from '../comments.js';

/** Comments on collections: `/api/collections/{id}/comments`. */
export default commentRoutes('collection');
