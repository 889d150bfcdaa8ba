import { commentRoutes } from '../comments.js';

/** Comments on recipes: `/api/recipes/{id}/comments`. */
export default commentRoutes('recipe');
