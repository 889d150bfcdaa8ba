import { commentRoutes } from '../comments.js';

/** Comments on posts: `/api/posts/{id}/comments`. */
export default commentRoutes('post');
