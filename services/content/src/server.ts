import { runService } from '@recipes/runtime';
import { contentService } from './service.js';

await runService(contentService);
