import { runService } from '@recipes/runtime';
import { commentsService } from './service.js';

await runService(commentsService);
