export { type CollectionsServiceStub, stubCollectionsService } from './collections.js';
export { type ContentServiceStub, stubContentService } from './content.js';
export { type UsersServiceStub, stubUsersService } from './users.js';
