import { runService } from '@recipes/runtime';
import { collectionsService } from './service.js';

await runService(collectionsService);
